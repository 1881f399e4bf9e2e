import Dispatch
import Foundation
import RESP
import RedisTestSupport
import Testing

/// DWELL and DEBOUNCE: events that wait on time.
@Suite("Fences: dwell and debounce")
struct FenceTimingTests {
  /// The next message's member and event, and when it came (uptime ns).
  static func next(_ c: RESPConnection) throws -> (String, UInt64) {
    guard case .array(let items) = try c.reply().value, items.count == 3,
      case .bulkString(let payload) = items[2]
    else { throw RESPConnection.Failed(description: "not a message") }
    let arrived = DispatchTime.now().uptimeNanoseconds
    let text = String(buffer: payload)
    guard
      let event = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else { return (text, arrived) }
    return ("\(event["event"] ?? "") \(event["member"] ?? "")", arrived)
  }

  static func seconds(since start: UInt64, _ at: UInt64) -> Double { Double(at - start) / 1e9 }

  @Test(
    "DWELL 1: enter at once, inside once after a second of staying (not again while it moves within); in and out within the second, no inside"
  )
  func dwell() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    let listener = try RESPConnection(port: server.port)
    #expect(
      try c.text(
        "FENCE.SET", "cafe", "KEY", "k", "CIRCLE", "0", "0", "500", "m", "DWELL", "1") == "OK")
    let fence = try c.object("FENCE.GET", "cafe")
    #expect(
      fence["dwell"] as? Int == 1 && fence["detect"] as? [String] == ["enter", "inside", "exit"])
    _ = try listener.command("SUBSCRIBE", "fence:cafe")
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try c.command("GEOADD", "k", "0", "0", "stays")
    _ = try c.command("GEOADD", "k", "0.001", "0", "passes")
    _ = try c.command("GEOADD", "k", "1", "0", "passes")
    _ = try c.command("GEOADD", "k", "0.001", "0.001", "stays")
    let (first, _) = try Self.next(listener)
    let (second, _) = try Self.next(listener)
    let (third, _) = try Self.next(listener)
    #expect([first, second, third] == ["enter stays", "enter passes", "exit passes"])
    let (dwelt, at) = try Self.next(listener)
    #expect(dwelt == "inside stays")
    #expect(Self.seconds(since: start, at) >= 0.95, "\(Self.seconds(since: start, at)) s")
    // Nothing more: the next message is this marker.
    try await Task.sleep(for: .milliseconds(1_300))
    _ = try c.command("PUBLISH", "fence:cafe", "marker")
    #expect(try Self.next(listener).0 == "marker")
    await server.stop()
  }

  @Test(
    "DEBOUNCE 1: in and out within the second tells nothing; an enter kept is told a second late; out and back within the second tells nothing; an exit kept is told a second late"
  )
  func debounce() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    let listener = try RESPConnection(port: server.port)
    #expect(
      try c.text(
        "FENCE.SET", "gate", "KEY", "k", "CIRCLE", "0", "0", "500", "m", "DEBOUNCE", "1") == "OK")
    #expect(try c.object("FENCE.GET", "gate")["debounce"] as? Int == 1)
    _ = try listener.command("SUBSCRIBE", "fence:gate")
    // In and out at once.
    _ = try c.command("GEOADD", "k", "0", "0", "flapper")
    _ = try c.command("GEOADD", "k", "1", "0", "flapper")
    // In to stay.
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try c.command("GEOADD", "k", "0", "0", "stayer")
    let (entered, at) = try Self.next(listener)
    #expect(entered == "enter stayer")
    #expect(Self.seconds(since: start, at) >= 0.95, "\(Self.seconds(since: start, at)) s")
    // Out and back at once: nothing; then out for good.
    _ = try c.command("GEOADD", "k", "1", "0", "stayer")
    _ = try c.command("GEOADD", "k", "0", "0", "stayer")
    try await Task.sleep(for: .milliseconds(1_300))
    let left = DispatchTime.now().uptimeNanoseconds
    _ = try c.command("GEOADD", "k", "1", "0", "stayer")
    let (exited, exitAt) = try Self.next(listener)
    #expect(exited == "exit stayer")
    #expect(Self.seconds(since: left, exitAt) >= 0.95)
    try await Task.sleep(for: .milliseconds(1_300))
    _ = try c.command("PUBLISH", "fence:gate", "marker")
    #expect(try Self.next(listener).0 == "marker")
    for bad in ["0", "86401", "x"] {
      #expect(
        try c.text("FENCE.SET", "x", "KEY", "k", "CIRCLE", "0", "0", "1", "km", "DEBOUNCE", bad)
          .hasPrefix("ERR DEBOUNCE must be"))
    }
    await server.stop()
  }
}
