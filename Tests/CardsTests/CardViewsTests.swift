import Accounts
import Cards
import DomainSupport
import DomainTestSupport
import Foundation
import SQLiteDomainStorage
import Testing

/// Views in process on a temporary store: what every door's open of a card counts.
@Suite("Card views in process")
struct CardViewsTests {
  static let migrations =
    SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
    + SQLiteCardViews.migrations

  static func setUp(_ temporary: TemporaryStore) async throws
    -> (CardViews, Cards, card: Card, owner: Int64, viewers: [Int64])
  {
    let (accounts, ids) = try await temporary.accounts(signingUp: [
      "owner@example.org", "ana@example.org", "bo@example.org",
    ])
    let cards = try Cards(storage: SQLiteCards(temporary.store), accounts: accounts)
    let notices = try Notices(
      storage: SQLiteNoticeSettings(temporary.store), cards: cards, notifier: SilentNotifier())
    let views = CardViews(storage: SQLiteCardViews(temporary.store), cards: cards, notices: notices)
    let card = try await answer {
      cards.create(owner: ids[0], json: #"{"firstName":"Olga"}"#, $0)
    }.get()
    return (views, cards, card, ids[0], Array(ids.dropFirst()))
  }

  static func total(_ views: CardViews, _ card: Card) async throws -> Int {
    try await answer {
      views.stats(owner: card.ownerId, id: card.id, from: UTCDay.today, to: UTCDay.today, $0)
    }.get().total
  }

  @Test("an account counts once a day, whatever it opens it by; the owner's own opens never")
  func accounts() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (views, _, card, owner, viewers) = try await Self.setUp(temporary)
    await views.counted(card, by: .account(owner))
    #expect(try await Self.total(views, card) == 0)
    for _ in 0..<3 { await views.counted(card, by: .account(viewers[0])) }
    #expect(try await Self.total(views, card) == 1)
    // Counted already: nothing to store, so the open is answered at once.
    #expect(views.opened(card, by: .account(viewers[0])) == nil)
    await views.counted(card, by: .account(viewers[1]))
    #expect(try await Self.total(views, card) == 2)
  }

  @Test("a visitor counts once a day by its client; another client is another visitor")
  func visitors() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (views, _, card, _, _) = try await Self.setUp(temporary)
    for _ in 0..<3 { await views.counted(card, by: .visitor(client: "198.51.100.7 Firefox")) }
    #expect(try await Self.total(views, card) == 1)
    await views.counted(card, by: .visitor(client: "198.51.100.8 Firefox"))
    #expect(try await Self.total(views, card) == 2)
    // The store holds a hash, never the client.
    let stored = try temporary.store.read { db in
      try Data.fetchAll(db, sql: "SELECT visitor FROM card_visits")
    }
    #expect(stored.count == 2)
    #expect(stored.allSatisfy { !String(decoding: $0, as: UTF8.self).contains("198.51") })
  }
}
