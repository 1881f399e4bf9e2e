import Durability
import Foundation

/// One write of `CardStorage`, as every node applies it to the cards it holds
/// (`Cards.apply(followed:own:)`): a store many nodes share carries it to them. A card travels
/// whole, so a node that applies a change needs nothing it may not have yet.
public enum CardChange: Sendable, Equatable, Codable {
  /// A new card, or one whose fields, primary flag or location changed; a new primary card
  /// takes its owner's reserved URL.
  case saved(StoredCard, externalId: String?, tookReservedURL: Bool)
  /// The owner's cards whose primary flag changed; the owner's reserved URL is taken.
  case primary([StoredCard], owner: Int64)
  /// A primary card's URL is reserved for its owner's next card.
  case deleted(StoredCard)
  /// The account's cards and its reserved URL, when the account goes.
  case deletedAll(owner: Int64)

  /// The cards it writes whole, which a write of this node may have changed since.
  var savedCards: [Int64] {
    switch self {
    case .saved(let card, _, _): [card.id]
    case .primary(let cards, _): cards.map(\.id)
    case .deleted, .deletedAll: []
    }
  }
}

/// A card as the feed carries it: its fields as the card model's JSON.
public struct StoredCard: Sendable, Equatable, Codable {
  public let id: Int64
  public let ownerId: Int64
  public let code: String
  public let slug: String
  public let isPrimary: Bool
  public let fields: String
  public let createdAt: Date
  public let updatedAt: Date

  public init(_ card: Card) {
    id = card.id
    ownerId = card.ownerId
    code = card.code
    slug = card.slug
    isPrimary = card.isPrimary
    fields = card.fields.json()
    createdAt = card.createdAt
    updatedAt = card.updatedAt
  }

  public func card() throws(CardFieldError) -> Card {
    Card(
      id: id, ownerId: ownerId, code: code, slug: slug, isPrimary: isPrimary,
      fields: try CardFields.stored(fields), createdAt: createdAt, updatedAt: updatedAt)
  }
}

/// How many cards an owner's plan allows: what a store many nodes share checks a new card
/// against again, since another node may have made one of the owner's cards meanwhile.
public struct CardPlan: Sendable, Equatable {
  public let cards: Int
  public let isPro: Bool

  public init(cards: Int, isPro: Bool) {
    self.cards = cards
    self.isPro = isPro
  }
}

/// A new card refused by a store many nodes share: another node made one of the owner's cards
/// at the same time, which the plan's limit (`overLimit`), the one primary card, a slug or an
/// external id did not allow. Nothing was written; the card is forgotten here.
public struct CardRaced: Error, CustomStringConvertible {
  public let overLimit: Bool

  public init(overLimit: Bool) { self.overLimit = overLimit }

  public var description: String {
    overLimit
      ? "another node made one of the owner's cards first: the plan's limit is reached"
      : "another node wrote one of the owner's cards at the same moment"
  }
}

extension Cards {
  /// Applies a change committed to the shared store, in the feed's order; `own` when this node
  /// wrote it (then memory has it already). A card this node saved since is not set back to an
  /// older state: its own later write comes after in the feed, and wins there too, so every
  /// node ends with the same card.
  public func apply(followed change: CardChange, own: Bool) {
    if own {
      state.withLock { s in
        for id in change.savedCards { s.seen(ownWriteOf: id) }
      }
      return
    }
    switch change {
    case .saved(let stored, let externalId, let tookReservedURL):
      guard let card = try? stored.card() else { return }
      let placed = state.withLock { s -> Bool in
        if tookReservedURL { s.reserved.remove(card.ownerId) }
        guard s.pending?[card.id] == nil else { return false }
        if s.cards.contains(card.id) {
          s.cards[card.id] = card
          if card.isPrimary { s.withPrimary.insert(card.ownerId) }
        } else {
          Self.add(card, to: &s)
          if let externalId {
            s.setExternalId(externalId, of: card.id, owner: card.ownerId)
          }
        }
        return true
      }
      if placed { followed(card) }
    case .primary(let stored, let owner):
      let cards = stored.compactMap { try? $0.card() }
      let changed = state.withLock { s -> [Card] in
        s.reserved.remove(owner)
        s.withPrimary.insert(owner)
        return cards.filter { card in
          guard s.pending?[card.id] == nil, s.cards.contains(card.id) else { return false }
          s.cards[card.id] = card
          return true
        }
      }
      for card in changed { followed(card) }
    case .deleted(let stored):
      // A deletion always applies: a later save of the card found no row to write.
      let gone = state.withLock { s -> Card? in
        guard let card = s.cards[stored.id] else { return nil }
        Self.remove(card, from: &s)
        if card.isPrimary { s.reserved.insert(card.ownerId) }
        return card
      }
      if let gone {
        map.remove(gone.id)
        _ = tell { $0.cardDeleted(gone) }
      }
    case .deletedAll(let owner):
      for card in forget(owner: owner) { _ = tell { $0.cardDeleted(card) } }
    }
  }

  /// A card another node changed: on the map as it is now, and the modules holding it told.
  /// Their writes are dropped: the writing node made them, and they reach here by the feed.
  private func followed(_ card: Card) {
    place(card)
    _ = tell { $0.cardChanged(card) }
  }
}
