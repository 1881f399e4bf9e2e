import DaemonTestSupport
import Foundation
import Gazetteer
import RESP
import RedisTestSupport
import Testing
import Venues

/// Venues, their codes and check-ins, through the protocol over real sockets.
@Suite("Venues")
struct VenueTests {
  @Test(
    "VENUE.CREATE answers the venue; bad JSON, names, fields and coordinates are refused and store nothing; VENUE.CODE is the owner's only"
  )
  func createAndCode() async throws {
    let server = try await TestDaemon.venues()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let venue = try ana.object("VENUE.CREATE", #"{"name":" Café Nord ","lon":9.52,"lat":47.14}"#)
    #expect(venue["name"] as? String == "Café Nord" && venue["ownerId"] as? Int == anaID)
    #expect(venue["lon"] as? Double == 9.52 && venue["lat"] as? Double == 47.14)
    #expect(venue["code"] == nil, "the code is VENUE.CODE's only")
    let id = "\(venue["id"] as? Int ?? 0)"
    let refused: [(String, String)] = [
      ("not json", "INVALID json: not a JSON object"),
      ("[1]", "INVALID json: not a JSON object"),
      (#"{"lon":1,"lat":2}"#, "INVALID name: required"),
      (#"{"name":"  ","lon":1,"lat":2}"#, "INVALID name: empty"),
      (#"{"name":"\#(String(repeating: "x", count: 201))","lon":1,"lat":2}"#, "INVALID name"),
      (#"{"name":"a\nb","lon":1,"lat":2}"#, "INVALID name"),
      (#"{"name":7,"lon":1,"lat":2}"#, "INVALID name: must be a string"),
      (#"{"name":"A","lon":"1","lat":2}"#, "INVALID lon: must be a number"),
      (#"{"name":"A","lon":true,"lat":2}"#, "INVALID lon: must be a number"),
      (#"{"name":"A","lon":null,"lat":2}"#, "INVALID lon: must be a number"),
      (#"{"name":"A","lon":181,"lat":2}"#, "INVALID lon: longitude or latitude out of range"),
      (#"{"name":"A","lon":1,"lat":86}"#, "INVALID lon: longitude or latitude out of range"),
      (#"{"name":"A","lon":1}"#, "INVALID lat"),
      (#"{"name":"A"}"#, "INVALID lon: lon and lat, or an address, required"),
      (#"{"name":"A","lon":1,"lat":2,"owner":3}"#, "INVALID owner: unknown field"),
      (#"{"name":"A","address":""}"#, "INVALID address"),
      (#"{"name":"A","address":"Vaduz"}"#, "ERR geocoding failed: no geocoder is configured"),
    ]
    for (json, error) in refused {
      #expect(try ana.text("VENUE.CREATE", json).hasPrefix(error), "\(json)")
    }
    #expect(try ana.objects("VENUE.MINE").count == 1, "nothing refused was stored")
    let code = try ana.text("VENUE.CODE", id)
    #expect(code.count == 16 && code.allSatisfy { $0.isLetter || $0.isNumber })
    #expect(try bo.text("VENUE.CODE", id) == "NOPERM the venue is not yours")
    #expect(try bo.text("VENUE.ROTATE", id) == "NOPERM the venue is not yours")
    #expect(try ana.text("VENUE.CODE", "99") == "NOTFOUND no such venue")
    #expect(try ana.text("VENUE.CODE", "x") == "NOTFOUND no such venue")
    #expect(try bo.object("VENUE.GET", id)["name"] as? String == "Café Nord")
    #expect(try bo.objects("VENUE.MINE").isEmpty)
    let anon = try server.connect()
    #expect(try anon.text("VENUE.MINE").hasPrefix("NOAUTH"))
    // Survives a restart, code and all.
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.text("VENUE.CODE", id) == code)
    #expect(try again.objects("VENUE.MINE").map { $0["name"] as? String } == ["Café Nord"])
    await server.stop()
  }

  @Test("VENUE.CREATE with only an address is placed where the geocoder finds it")
  func geocodedAddress() async throws {
    let gazetteer = try CardLocateAddressTests.gazetteer.get()
    let server = try await TestDaemon.venues(cards: { $0.geocoder = gazetteer })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let venue = try ana.object("VENUE.CREATE", #"{"name":"Rathaus","address":"Vaduz, LI"}"#)
    #expect(abs((venue["lon"] as? Double ?? 0) - 9.52) < 0.05, "\(venue)")
    #expect(abs((venue["lat"] as? Double ?? 0) - 47.14) < 0.05)
    #expect(venue["address"] as? String == "Vaduz, LI")
    #expect(
      try ana.text("VENUE.CREATE", #"{"name":"X","address":"Qqqqzzzxxy Nowhere"}"#)
        == "NOTFOUND no place matches the address")
    #expect(try ana.objects("VENUE.MINE").count == 1)
    await server.stop()
  }

  @Test(
    "CHECKIN by code, refused farther than the distance (NOTINRANGE), by a rotated code, or with bad arguments; checking in elsewhere closes the open visit; CHECKOUT, CHECKIN.LAST, CHECKIN.HISTORY"
  )
  func checkIns() async throws {
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock, distance: 100)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let cafe = try owner.venue("Cafe", 9.52, 47.14)
    let gym = try owner.venue("Gym", 9.53, 47.15)
    let cafeCode = try owner.text("VENUE.CODE", cafe)
    let gymCode = try owner.text("VENUE.CODE", gym)
    let t0 = clock.seconds
    #expect(try ana.command("CHECKIN.LAST").text == "$-1\r\n")
    // About 150 m east of the café: refused, with the metres beyond the limit.
    let far = try ana.text("CHECKIN", cafeCode, "9.522", "47.14")
    #expect(far.hasPrefix("NOTINRANGE "), "\(far)")
    #expect((Int(far.dropFirst("NOTINRANGE ".count)) ?? 0) > 40)
    #expect(try ana.command("CHECKIN.HISTORY").text == "*0\r\n", "a refusal stores nothing")
    #expect(try ana.text("CHECKIN", cafeCode, "9.52").hasPrefix("ERR syntax"))
    #expect(try ana.text("CHECKIN", cafeCode, "x", "47.14") == "ERR value is not a valid float")
    #expect(try ana.text("CHECKIN", cafeCode, "200", "47.14").hasPrefix("INVALID position"))
    #expect(try ana.text("CHECKIN", "nosuchcode") == "NOTFOUND no venue has this code")
    #expect(try ana.command("CHECKIN.HISTORY").text == "*0\r\n")

    let first = try ana.object("CHECKIN", cafeCode, "9.5201", "47.1401")
    #expect(first["venueId"] as? Int == Int(cafe) && first["isOpen"] as? Bool == true)
    #expect(first["checkedOutAt"] is NSNull && seconds(first["checkedInAt"]) == t0)
    // The same venue again: still the same visit.
    clock.advance(60)
    #expect(try ana.object("CHECKIN", cafeCode)["id"] as? Int == first["id"] as? Int)
    // Elsewhere: the café's visit closes as the gym's opens.
    clock.advance(600)
    let second = try ana.object("CHECKIN", gymCode)
    #expect(seconds(second["checkedInAt"]) == t0 + 660)
    var history = try ana.objects("CHECKIN.HISTORY")
    #expect(history.map { $0["venueName"] as? String } == ["Gym", "Cafe"])
    #expect(
      seconds(history[1]["checkedOutAt"]) == t0 + 660 && history[1]["isOpen"] as? Bool == false)
    #expect(try ana.object("CHECKIN.LAST")["id"] as? Int == second["id"] as? Int)
    clock.advance(900)
    let out = try ana.object("CHECKOUT")
    #expect(out["id"] as? Int == second["id"] as? Int && seconds(out["checkedOutAt"]) == t0 + 1560)
    #expect(try ana.object("CHECKOUT").isEmpty, "nothing was open")
    // Rotation: the old code stops at once, the new one works.
    let rotated = try owner.text("VENUE.ROTATE", cafe)
    #expect(rotated != cafeCode && rotated.count == 16)
    #expect(try owner.text("VENUE.CODE", cafe) == rotated)
    #expect(try ana.text("CHECKIN", cafeCode) == "NOTFOUND no venue has this code")
    clock.advance(60)
    #expect(try ana.object("CHECKIN", rotated)["venueId"] as? Int == Int(cafe))
    // Windows: FROM and TO as seconds or ISO 8601.
    history = try ana.objects("CHECKIN.HISTORY", "FROM", "\(Int(t0 + 700))")
    #expect(history.map { $0["venueName"] as? String } == ["Cafe", "Gym"])
    history = try ana.objects("CHECKIN.HISTORY", "TO", Venues.timestamp(t0 + 660))
    #expect(history.map { $0["venueName"] as? String } == ["Cafe"], "touching TO is not inside")
    history = try ana.objects("CHECKIN.HISTORY", "COUNT", "1")
    #expect(history.count == 1 && history[0]["isOpen"] as? Bool == true)
    for bad in [["FROM"], ["FROM", "yesterday"], ["COUNT", "0"], ["SINCE", "1"]] {
      #expect(try ana.command(["CHECKIN.HISTORY"] + bad).text.hasPrefix("-ERR"), "\(bad)")
    }
    #expect(
      try ana.text("CHECKIN.HISTORY", "FROM", "10", "TO", "5") == "ERR FROM must be before TO")
    // Durable: the same after a restart.
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.objects("CHECKIN.HISTORY").count == 3)
    #expect(try again.object("CHECKIN.LAST")["isOpen"] as? Bool == true)
    await server.stop()
  }

  @Test("VENUE.VISITORS is the owner's only (NOPERM otherwise), newest first, within FROM and TO")
  func visitors() async throws {
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (ana, anaID, anaName) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    let cafe = try owner.venue("Cafe", 1, 1)
    let code = try owner.text("VENUE.CODE", cafe)
    let t0 = clock.seconds
    _ = try ana.object("CHECKIN", code)
    clock.advance(100)
    _ = try bo.object("CHECKIN", code)
    clock.advance(100)
    _ = try ana.object("CHECKOUT")
    let all = try owner.objects("VENUE.VISITORS", cafe)
    #expect(all.map { $0["accountId"] as? Int } == [boID, anaID])
    #expect(all[1]["username"] as? String == anaName)
    #expect(seconds(all[1]["checkedOutAt"]) == t0 + 200 && all[0]["isOpen"] as? Bool == true)
    #expect(
      try owner.objects("VENUE.VISITORS", cafe, "FROM", "\(Int(t0 + 200))").map {
        $0["accountId"] as? Int
      } == [boID], "ana left as the window starts: touching is not inside")
    #expect(
      try owner.objects("VENUE.VISITORS", cafe, "TO", "\(Int(t0 + 100))").map {
        $0["accountId"] as? Int
      } == [anaID])
    for visitor in [ana, bo] {
      #expect(try visitor.text("VENUE.VISITORS", cafe) == "NOPERM the venue is not yours")
    }
    #expect(try owner.text("VENUE.VISITORS", "99") == "NOTFOUND no such venue")
    await server.stop()
  }

  @Test("redis-py checks in with a scanned code and reads the history")
  func redisPy() async throws {
    let server = try await TestDaemon.venues()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    _ = try server.signedIn("ana@x.org")
    let cafe = try owner.venue("Cafe", 9.52, 47.14)
    let code = try owner.text("VENUE.CODE", cafe)
    let script = """
      import json, redis
      r = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1")
      visit = json.loads(r.execute_command("CHECKIN", "\(code)", 9.5201, 47.1402))
      print(visit["venueName"], visit["isOpen"])
      try:
          r.execute_command("CHECKIN", "\(code)", 9.6, 47.14)
      except redis.exceptions.ResponseError as e:
          print(str(e).split()[0])
      print(len(r.execute_command("CHECKIN.HISTORY")))
      print(json.loads(r.execute_command("CHECKOUT"))["isOpen"])
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    #expect(output == "Cafe True\nNOTINRANGE\n1\nFalse\n")
    await server.stop()
  }
}
