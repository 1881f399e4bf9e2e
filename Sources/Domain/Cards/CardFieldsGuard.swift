/// A module whose records a card's fields may name (uploaded assets in `imageUrl`, `logoUrl`,
/// `bannerUrl`, `cvUrl`). Asked under the cards' lock before a card with new fields is kept, so
/// a refusal changes nothing and a claim cannot race the deletion of another card naming the
/// same record.
public protocol CardFieldsGuard: Sendable {
  /// Records that card `card` of `owner` now names what `fields` names; or why it may not.
  /// Must not call back into `Cards`.
  func claim(card: Int64, owner: Int64, fields: CardFields) -> CardFieldError?
}
