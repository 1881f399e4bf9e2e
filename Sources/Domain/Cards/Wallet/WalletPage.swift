/// Which page of a wallet to list, as WALLET.LIST's `COUNT` and `CURSOR` and `GET /v1/wallet`'s
/// `count=` and `cursor=` give it: read here once, so the two doors cannot differ.
public struct WalletPage: Sendable, Equatable {
  public static let defaultCount = 20
  public let count: Int
  /// Where the page starts: nil for the newest entry.
  public let cursor: WalletCursor?

  /// `count` 1 to `Wallets.maxListCount` (20 when not given); `cursor` a page's `next`, or `0`
  /// (or none) for the newest. Anything else is refused, never clamped.
  public init(count: String? = nil, cursor: String? = nil) throws(CardError) {
    var pageCount = Self.defaultCount
    if let count {
      guard let n = Int(count), (1...Wallets.maxListCount).contains(n) else {
        throw .badQuery("COUNT must be an integer 1 to \(Wallets.maxListCount)")
      }
      pageCount = n
    }
    self.count = pageCount
    if let cursor, cursor != "0" {
      guard let parsed = WalletCursor(cursor) else { throw .badQuery("invalid cursor") }
      self.cursor = parsed
    } else {
      self.cursor = nil
    }
  }
}
