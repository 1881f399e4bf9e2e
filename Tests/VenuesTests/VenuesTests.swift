import Accounts
import DomainSupport
import DomainTestSupport
import Foundation
import SQLiteDomainStorage
import Testing
import Venues

/// The venues' rules, in process on a temporary store: whose a venue's code and visitors are,
/// check-ins by code within reach, a rotated code, and a restart.
@Suite("Venues in process")
struct VenuesTests {
  static let migrations = SQLiteAccounts.migrations + SQLiteVenues.migrations

  static func venues(_ temporary: TemporaryStore) async throws -> (
    Venues, owner: Int64, visitor: Int64
  ) {
    let (accounts, ids) = try await temporary.accounts(signingUp: [
      "cafe@example.org", "guest@example.org",
    ])
    var configuration = Venues.Configuration()
    configuration.createsPerHour = 0
    let venues = try Venues(
      storage: SQLiteVenues(temporary.store), accounts: accounts, notifier: SilentNotifier(),
      configuration: configuration)
    return (venues, ids[0], ids[1])
  }

  @Test("a venue's code and visitors are its owner's; a check-in needs the code and to be near")
  func codesAndCheckIns() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (venues, owner, visitor) = try await Self.venues(temporary)
    let unnamed = await answer {
      venues.create(owner: owner, json: #"{"lon":2.35,"lat":48.85}"#, $0)
    }
    #expect(throws: VenueError.self) { try unnamed.get() }
    let cafe = try await answer {
      venues.create(owner: owner, json: #"{"name":"Café Lune","lon":2.35,"lat":48.85}"#, $0)
    }.get()
    #expect(throws: VenueError.noPermission("the venue is not yours")) {
      try venues.code(owner: visitor, venue: cafe.id).get()
    }
    let code = try venues.code(owner: owner, venue: cafe.id).get()
    let unknown = await answer {
      venues.checkIn(account: visitor, code: "NOSUCHCODE", at: (2.35, 48.85), $0)
    }
    #expect(throws: VenueError.notFound("no venue has this code")) { try unknown.get() }
    // About 1.1 km away: beyond the 200 m a check-in may be made from.
    let far = await answer { venues.checkIn(account: visitor, code: code, at: (2.35, 48.86), $0) }
    guard case .failure(.notInRange(let metres)) = far else {
      Issue.record("checked in from afar: \(far)")
      return
    }
    #expect((900...920).contains(metres), "\(metres)")
    let checkedIn = try await answer {
      venues.checkIn(account: visitor, code: code, at: (2.3501, 48.8501), $0)
    }.get()
    let visit = try #require(checkedIn.visit)
    #expect(visit.venueId == cafe.id && visit.isOpen)
    #expect(
      try venues.visitors(owner: owner, venue: cafe.id, from: nil, to: nil, count: 10).get() == [
        .account(visit)
      ])
    #expect(throws: VenueError.noPermission("the venue is not yours")) {
      try venues.visitors(owner: visitor, venue: cafe.id, from: nil, to: nil, count: 10).get()
    }
    // A rotated code: the old one checks no one in.
    let rotated = try await answer { venues.rotate(owner: owner, venue: cafe.id, $0) }.get()
    #expect(rotated != code)
    let stale = await answer { venues.checkIn(account: owner, code: code, at: nil, $0) }
    #expect(throws: VenueError.notFound("no venue has this code")) { try stale.get() }
  }

  @Test("venues, codes and visits are there after a restart")
  func restart() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (venues, owner, visitor) = try await Self.venues(temporary)
    let cafe = try await answer {
      venues.create(owner: owner, json: #"{"name":"Café Lune","lon":2.35,"lat":48.85}"#, $0)
    }.get()
    let code = try venues.code(owner: owner, venue: cafe.id).get()
    let visit = try #require(
      try await answer { venues.checkIn(account: visitor, code: code, at: nil, $0) }.get().visit)
    _ = venues
    _ = try temporary.reopen()
    let reloaded = try Venues(
      storage: SQLiteVenues(temporary.store), accounts: try await temporary.accounts().0,
      notifier: SilentNotifier())
    #expect(reloaded.venue(cafe.id)?.name == "Café Lune")
    #expect(try reloaded.code(owner: owner, venue: cafe.id).get() == code)
    #expect(reloaded.lastVisit(account: visitor) == visit)
  }
}
