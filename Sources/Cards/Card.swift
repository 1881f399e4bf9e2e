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
  public var fields: CardFields
  public let createdAt: Date
  public var updatedAt: Date

  /// Active: the primary card always, the others while the owner is Pro. An inactive card
  /// keeps its fields (its owner may edit it) but has no share URL or code, is never on the
  /// map, and no wallet can add it.
  public func isActive(ownerIsPro: Bool) -> Bool { isPrimary || ownerIsPro }

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
}
