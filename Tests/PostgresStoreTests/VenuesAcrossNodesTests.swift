import Foundation
import RESP
import RedisTestSupport
import Testing

/// CovidPass's venues across nodes that share one PostgreSQL: a venue made on one node checks
/// people in on another; its owner sees every node's visitors; a rotated code stops working on
/// every node; an exposure reported on one node reaches a visitor on another; a node restarted
/// loads it all.
@Suite("Venues across nodes over PostgreSQL", .serialized)
struct VenuesAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced
  static let list = PeopleAcrossNodesTests.list

  static func signedIn(_ port: UInt16, _ name: String) throws -> RESPConnection {
    let connection = try RESPConnection(port: port)
    _ = try connection.signUp("\(name)@x.org")
    return connection
  }

  static func today() -> String {
    Date().formatted(Date.ISO8601FormatStyle().year().month().day())
  }

  @Test(
    "a venue made on A checks in a visitor and her dependant on B and another visitor on A; the owner on A sees all three; a check-out on A is seen on B; a rotated code stops on both; a favourite travels; a positive test reported on B tells the visitor on A (a subscriber hears it); B killed with -9 loads the history"
  )
  func venuesTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      var b = try NodesOverRESPTests.node(url, directory + "/b")
      let owner = try Self.signedIn(a.port, "owner")
      let venue = try owner.object("VENUE.CREATE", #"{"name":"Café","lon":2.35,"lat":48.85}"#)
      let venueId = try #require(venue["id"] as? Int)
      let code = try owner.text("VENUE.CODE", "\(venueId)")
      let bob = try Self.signedIn(a.port, "bob")
      let bobId = try #require(try bob.object("WHOAMI")["id"] as? Int)
      try await Self.synced(a.port, b.port)

      // Ana checks in on B with her child; bob on A.
      let ana = try Self.signedIn(b.port, "ana")
      let anaId = try #require(try ana.object("WHOAMI")["id"] as? Int)
      let child = try #require(try ana.object("DEPENDANT.ADD", "Kid")["id"] as? Int)
      let checkIn = try ana.object("CHECKIN", code, "2.35", "48.85", "WITH", "\(child)")
      #expect(checkIn["isOpen"] as? Bool == true, "\(checkIn)")
      #expect(try bob.object("CHECKIN", code)["isOpen"] as? Bool == true)
      try await Self.synced(b.port, a.port)
      let visitors = try Self.list(owner, "VENUE.VISITORS", "\(venueId)")
      #expect(
        Set(visitors.compactMap { $0["accountId"] as? Int }) == [anaId, bobId], "\(visitors)")
      #expect(visitors.count == 3, "ana, her child and bob")

      // Ana checks out on A: B sees it.
      let anaOnA = try RESPConnection(port: a.port)
      #expect(try anaOnA.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try anaOnA.object("CHECKOUT")["isOpen"] as? Bool == false)
      try await Self.synced(a.port, b.port)
      #expect(try ana.object("CHECKIN.LAST")["isOpen"] as? Bool == false)

      // A code rotated on A checks nobody in on B; the new one does.
      let rotated = try owner.text("VENUE.ROTATE", "\(venueId)")
      try await Self.synced(a.port, b.port)
      #expect(try ana.text("CHECKIN", code).hasPrefix("NOTFOUND"))
      #expect(try ana.object("CHECKIN", rotated)["isOpen"] as? Bool == true)
      #expect(try ana.text("FAVORITE.ADD", "\(venueId)") == "1")
      try await Self.synced(b.port, a.port)
      #expect(try Self.list(anaOnA, "FAVORITE.LIST").compactMap { $0["id"] as? Int } == [venueId])

      // Bob's positive test, reported on B: ana, on A, is told (and hears it).
      let heard = try RESPConnection(port: a.port)
      #expect(try heard.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try heard.command("SUBSCRIBE", "account:\(anaId)").text.contains("account"))
      let bobOnB = try RESPConnection(port: b.port)
      #expect(try bobOnB.text("AUTH", "bob@x.org", "secret1") == "OK")
      let pdf = try MediaFixtures.bytes("result.pdf")
      let put = try bobOnB.command(bytes: [
        Array("DOC.PUT".utf8), Array("TEST-POSITIVE".utf8), Array(Self.today().utf8), pdf,
      ]).text
      #expect(put.contains("TEST-POSITIVE"), "\(put)")
      let told = try bobOnB.text("EXPOSURE.REPORT")
      #expect(Int(told) ?? 0 >= 2, "ana and her child overlapped bob: \(told)")
      #expect(try heard.reply().text.contains("exposure"))
      try await Self.synced(b.port, a.port)
      let notices = try Self.list(anaOnA, "EXPOSURE.MINE")
      #expect(notices.count >= 1 && notices.allSatisfy { $0["venueId"] as? Int == venueId })

      // B killed with -9 loads the visits, the dependant and the notices.
      try await b.crash(after: .zero)
      b = try NodesOverRESPTests.node(url, directory + "/b")
      let ana2 = try RESPConnection(port: b.port)
      #expect(try ana2.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try Self.list(ana2, "CHECKIN.HISTORY").count == 3, "two of hers, one of the child")
      #expect(try Self.list(ana2, "DEPENDANT.LIST").compactMap { $0["id"] as? Int } == [child])
      #expect(try Self.list(ana2, "EXPOSURE.MINE").count == notices.count)
    }
  }
}
