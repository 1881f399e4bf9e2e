import Accounts
import Cards
import DomainSupport
import DomainTestSupport
import Foundation
import People
import SQLiteDomainStorage
import Testing

/// People nearby, in process on a temporary store: who is found and who never is, and that the
/// distance shown is rounded and never names the exact one.
@Suite("People nearby in process")
struct PeopleInProcessTests {
  static let migrations =
    SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
    + SQLiteCardViews.migrations
    + SQLiteExchanges.migrations

  /// People on a fresh store; `emails` signed up, each with a primary card.
  static func people(_ temporary: TemporaryStore, _ emails: [String]) async throws -> (
    People, [Int64]
  ) {
    let (accounts, ids) = try await temporary.accounts(signingUp: emails)
    let cards = try Cards(storage: SQLiteCards(temporary.store), accounts: accounts)
    let notices = try Notices(
      storage: SQLiteNoticeSettings(temporary.store), cards: cards, notifier: SilentNotifier())
    let wallets = try Wallets(
      storage: SQLiteWallets(temporary.store), cards: cards, notices: notices)
    for (email, id) in zip(emails, ids) {
      _ = try await answer {
        cards.create(owner: id, json: #"{"firstName":"\#(email.prefix(3))"}"#, $0)
      }.get()
    }
    var configuration = People.Configuration()
    configuration.searchesPerMinute = nil
    configuration.searchCellsPerAccount = 0
    configuration.searchCellsPerAddress = 0
    let people = try People(
      storage: SQLiteExchanges(temporary.store), accounts: accounts, cards: cards, wallets: wallets,
      notifier: SilentNotifier(), configuration: configuration)
    return (people, ids)
  }

  @Test(
    "found: the findable within reach, nearest first; never the caller, the unfindable or the far")
  func whoIsFound() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (people, ids) = try await Self.people(
      temporary, ["ana@x.org", "bo@x.org", "cy@x.org", "di@x.org", "ed@x.org"])
    let (ana, bo, cy, di, ed) = (ids[0], ids[1], ids[2], ids[3], ids[4])
    let noPresence = people.nearby(account: ana, client: "10.0.0.1", radius: 1_000, count: 10)
    #expect(throws: PeopleError.noPresence) { try noPresence.get() }
    _ = try people.setPresence(
      account: ana, longitude: 2.35, latitude: 48.85, findable: true, ttl: nil
    ).get()
    // Bo about 300 m away, Cy about 1.5 km (no blur of ±250 m can swap them), Di near but
    // not findable, Ed 20 km away.
    _ = try people.setPresence(
      account: bo, longitude: 2.35, latitude: 48.8527, findable: true, ttl: nil
    ).get()
    _ = try people.setPresence(
      account: cy, longitude: 2.35, latitude: 48.8635, findable: true, ttl: nil
    ).get()
    _ = try people.setPresence(
      account: di, longitude: 2.3505, latitude: 48.8505, findable: false, ttl: nil
    ).get()
    _ = try people.setPresence(
      account: ed, longitude: 2.35, latitude: 49.03, findable: true, ttl: nil
    ).get()
    let found = try people.nearby(account: ana, client: "10.0.0.1", radius: 5_000, count: 10).get()
    #expect(found.map(\.accountId) == [bo, cy])
    for person in found {
      #expect(person.distance % 100 == 0 && person.distance >= 100, "\(person.distance)")
    }
    #expect(found.first?.card.fields.firstName == "bo@")
    #expect(people.clearPresence(account: bo))
    let after = try people.nearby(account: ana, client: "10.0.0.1", radius: 5_000, count: 10).get()
    #expect(after.map(\.accountId) == [cy])
    let bad = people.setPresence(
      account: ana, longitude: 200, latitude: 48.85, findable: true, ttl: nil)
    #expect(throws: PeopleError.self) { try bad.get() }
  }
}
