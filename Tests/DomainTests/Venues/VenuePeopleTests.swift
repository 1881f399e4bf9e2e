import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Favorites and dependants, through the protocol over real sockets.
@Suite("VenuePeople")
struct VenuePeopleTests {
  @Test("FAVORITE.ADD, DEL and LIST: the latest first, unknown venues refused, durable")
  func favorites() async throws {
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let cafe = try owner.venue("Cafe", 1, 1)
    let gym = try owner.venue("Gym", 1, 1.001)
    #expect(try ana.text("FAVORITE.ADD", cafe) == "1")
    #expect(try ana.text("FAVORITE.ADD", cafe) == "0", "already there")
    clock.advance(1)
    #expect(try ana.text("FAVORITE.ADD", gym) == "1")
    #expect(try ana.text("FAVORITE.ADD", "99") == "NOTFOUND no such venue")
    #expect(try ana.text("FAVORITE.ADD", "x") == "NOTFOUND no such venue")
    #expect(try ana.objects("FAVORITE.LIST").map { $0["name"] as? String } == ["Gym", "Cafe"])
    #expect(try owner.objects("FAVORITE.LIST").isEmpty, "each account's own")
    #expect(try ana.text("FAVORITE.DEL", gym) == "1")
    #expect(try ana.text("FAVORITE.DEL", gym) == "0")
    #expect(try ana.text("FAVORITE.DEL", "x") == "0")
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.objects("FAVORITE.LIST").map { $0["name"] as? String } == ["Cafe"])
    await server.stop()
  }

  @Test(
    "Dependants: added by name, checked in WITH their account and out with it, shown to the venue; another's or a removed dependant is refused; at most 20"
  )
  func dependants() async throws {
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let cafe = try owner.venue("Cafe", 1, 1)
    let gym = try owner.venue("Gym", 1, 1.001)
    let (cafeCode, gymCode) = (
      try owner.text("VENUE.CODE", cafe), try owner.text("VENUE.CODE", gym)
    )
    let kid = try ana.object("DEPENDANT.ADD", " Kim ")
    #expect(kid["name"] as? String == "Kim")
    let kidID = "\(kid["id"] as? Int ?? 0)"
    let boKid = "\(try bo.object("DEPENDANT.ADD", "Lee")["id"] as? Int ?? 0)"
    for bad in ["", "   ", String(repeating: "x", count: 201), "a\nb"] {
      #expect(try ana.text("DEPENDANT.ADD", bad).hasPrefix("INVALID name"), "\(bad)")
    }
    #expect(try ana.objects("DEPENDANT.LIST").map { $0["name"] as? String } == ["Kim"])
    #expect(
      try ana.text("CHECKIN", cafeCode, "WITH", boKid) == "NOTFOUND no such dependant: \(boKid)")
    #expect(try ana.text("CHECKIN", cafeCode, "WITH", kidID, kidID).hasPrefix("INVALID dependants"))
    #expect(try ana.text("CHECKIN", cafeCode, "WITH") == "ERR syntax error")
    #expect(try ana.command("CHECKIN.HISTORY").text == "*0\r\n", "refusals store nothing")
    let visit = try ana.object("CHECKIN", cafeCode, "1", "1", "WITH", kidID)
    let kidVisit = (visit["dependants"] as? [[String: Any]])?.first ?? [:]
    #expect(kidVisit["dependant"] as? String == "Kim" && kidVisit["venueId"] as? Int == Int(cafe))
    let seen = try owner.objects("VENUE.VISITORS", cafe)
    #expect(seen.count == 2 && seen.allSatisfy { $0["accountId"] as? Int == anaID })
    #expect(seen.compactMap { $0["dependant"] as? String } == ["Kim"])
    // Ana alone elsewhere: Kim stays at the café.
    clock.advance(60)
    _ = try ana.object("CHECKIN", gymCode)
    #expect(
      try owner.objects("VENUE.VISITORS", cafe).filter { $0["isOpen"] as? Bool == true }.count == 1)
    clock.advance(60)
    let out = try ana.object("CHECKOUT")
    #expect(out["venueId"] as? Int == Int(gym))
    #expect((out["dependants"] as? [[String: Any]])?.first?["dependant"] as? String == "Kim")
    #expect(try ana.objects("CHECKIN.HISTORY").allSatisfy { $0["isOpen"] as? Bool == false })
    #expect(try ana.objects("CHECKIN.HISTORY").count == 3)
    #expect(try bo.text("DEPENDANT.DEL", kidID) == "NOTFOUND no such dependant")
    #expect(try ana.text("DEPENDANT.DEL", kidID) == "1")
    #expect(try ana.text("DEPENDANT.DEL", kidID) == "NOTFOUND no such dependant")
    #expect(try ana.objects("DEPENDANT.LIST").isEmpty)
    #expect(
      try ana.text("CHECKIN", cafeCode, "WITH", kidID) == "NOTFOUND no such dependant: \(kidID)")
    #expect(try ana.objects("CHECKIN.HISTORY").count == 3, "a removed dependant's visits stay")
    for i in 0..<20 { _ = try ana.object("DEPENDANT.ADD", "Child \(i)") }
    #expect(try ana.text("DEPENDANT.ADD", "One more").hasPrefix("LIMIT"))
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.objects("DEPENDANT.LIST").count == 20)
    #expect(
      try again.objects("CHECKIN.HISTORY").compactMap { $0["dependant"] as? String } == ["Kim"])
    await server.stop()
  }

  @Test("A deleted account's venues, visits, dependants and favorites go, in memory and on disk")
  func accountDeletion() async throws {
    let server = try await TestDaemon.venues()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let cafe = try owner.venue("Cafe", 1, 1)
    let code = try owner.text("VENUE.CODE", cafe)
    let anaCafe = try ana.venue("Ana's", 2, 2)
    _ = try ana.object("DEPENDANT.ADD", "Kim")
    _ = try ana.object("CHECKIN", code)
    _ = try owner.object("CHECKIN", try ana.text("VENUE.CODE", anaCafe))
    _ = try owner.text("FAVORITE.ADD", anaCafe)
    #expect(try ana.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try owner.objects("VENUE.VISITORS", cafe).isEmpty)
    #expect(try owner.objects("CHECKIN.HISTORY").isEmpty, "the visit to Ana's venue went with it")
    #expect(try owner.objects("FAVORITE.LIST").isEmpty)
    #expect(try owner.text("VENUE.GET", anaCafe) == "NOTFOUND no such venue")
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "owner@x.org", "secret1")
    #expect(try again.objects("VENUE.VISITORS", cafe).isEmpty)
    #expect(try again.objects("CHECKIN.HISTORY").isEmpty)
    #expect(try again.text("VENUE.GET", anaCafe) == "NOTFOUND no such venue")
    await server.stop()
  }
}
