import Foundation

/// A digital business card: what its owner set (`fields`) and what the server set.
public struct Card: Sendable, Equatable {
  public let id: Int64
  public let ownerId: Int64
  /// The share code a QR code or a link carries: unique among all cards.
  public let code: String
  /// 3 characters, unique among the owner's cards: the card's URL is `/c/<username>/<slug>`
  /// unless it is the primary card (`/c/<username>`).
  public let slug: String
  public var isPrimary: Bool
  public let createdAt: Date
  public var updatedAt: Date
  /// The fields, in a box shared by copies until one changes them: a card value is copied for
  /// every read, and a copy is then one retain, not one per field. (Memory holds the fields
  /// packed, not boxed: `HeldCards`.)
  private var box: FieldsBox

  public var fields: CardFields {
    _read { yield box.fields }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = FieldsBox(box.fields) }
      yield &box.fields
    }
  }

  public init(
    id: Int64, ownerId: Int64, code: String, slug: String, isPrimary: Bool, fields: CardFields,
    createdAt: Date, updatedAt: Date
  ) {
    self.id = id
    self.ownerId = ownerId
    self.code = code
    self.slug = slug
    self.isPrimary = isPrimary
    self.box = FieldsBox(fields)
    self.createdAt = createdAt
    self.updatedAt = updatedAt
  }

  public static func == (a: Card, b: Card) -> Bool {
    a.id == b.id && a.ownerId == b.ownerId && a.code == b.code && a.slug == b.slug
      && a.isPrimary == b.isPrimary && a.createdAt == b.createdAt && a.updatedAt == b.updatedAt
      && (a.box === b.box || a.fields == b.fields)
  }

  /// Active: the primary card always, the others while the owner is Pro. An inactive card
  /// keeps its fields (its owner may edit it) but has no share URL or code, is never on the
  /// map, and no wallet can add it.
  public func isActive(ownerIsPro: Bool) -> Bool { isPrimary || ownerIsPro }

  /// The card as `viewer` sees it (nil: anyone, signed in or not): another's card that its owner
  /// keeps off the map shows no location.
  public func shown(to viewer: Int64?) -> Card {
    guard viewer != ownerId, !fields.showOnMap, fields.location != nil else { return self }
    var card = self
    card.fields.location = nil
    return card
  }

  /// The path of the card's share URL, under the public URL.
  public func path(username: String) -> String {
    isPrimary ? "/c/\(username)" : "/c/\(username)/\(slug)"
  }
}

/// What a card's share URL shows (`CARD.OPEN`).
public enum OpenedCard: Sendable, Equatable {
  case card(Card)
  /// The card exists but its owner's Pro has ended: "no longer active".
  case inactive
  /// The owner deleted their primary card: its URL is kept for their next card.
  case placeholder
  case notFound

  /// What the URL of an inactive card says (the pages and CARD.OPEN).
  public static let inactiveMessage = "This card is no longer active."
  /// What a reserved primary URL says until the owner's next card takes it.
  public static let placeholderMessage = "This card is being replaced."
}

/// A card's fields, shared by the card's copies. Sendable as an array's storage is: written only
/// while one card holds it (`Card.fields` copies it first otherwise).
private final class FieldsBox: @unchecked Sendable {
  var fields: CardFields
  init(_ fields: CardFields) { self.fields = fields }
}
