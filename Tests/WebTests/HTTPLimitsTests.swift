import DaemonTestSupport
import Foundation
import Testing
import WebPages

/// The HTTP side's connection limits, as attacks over real sockets: slowloris, idle keep-alive
/// connections, one address taking every connection. (Descriptor exhaustion, which needs a
/// process of its own under a lowered limit, is `HTTPDescriptorTests`.)
@Suite("HTTP limits")
struct HTTPLimitsTests {
  static func limits(
    header: Int = 30, idle: Int = 30, max: Int = 1024, perAddress: Int = 64
  ) -> HTTPLimits {
    var limits = HTTPLimits()
    limits.headerTimeout = .seconds(header)
    limits.idleTimeout = .seconds(idle)
    limits.maxConnections = max
    limits.maxConnectionsPerAddress = perAddress
    return limits
  }

  @Test("slowloris: connections dribbling a header line are closed with 408 at the header timeout")
  func slowloris() async throws {
    let server = try await TestDaemon.web(limits: Self.limits(header: 1))
    let attackers = try (0..<20).map { _ in try HTTPSocket(port: server.httpPort) }
    for socket in attackers { socket.send("GET / HTTP/1.1\r\n") }
    var served: (status: Int?, took: Duration)?
    // A header line from each every 250 ms, for 4 s at most; a normal request at 500 ms.
    for tick in 1...16 where attackers.contains(where: { $0.closedAt == nil }) {
      usleep(250_000)
      for (i, socket) in attackers.enumerated() where socket.closedAt == nil {
        socket.send("X-Slow-\(i)-\(tick): 1\r\n")
        socket.read(within: .zero)
      }
      if tick == 2 {
        let started = ContinuousClock.now
        let status = try HTTPSocket(port: server.httpPort).get("/openapi.json")
        served = (status, .now - started)
      }
    }
    for socket in attackers { socket.read(within: .milliseconds(100)) }
    let lifetimes = attackers.compactMap(\.lifetime)
    #expect(lifetimes.count == attackers.count, "every dribbling connection is closed")
    #expect(lifetimes.allSatisfy { $0 >= .milliseconds(900) && $0 < .milliseconds(2000) })
    #expect(attackers.allSatisfy { $0.status == 408 })
    #expect(served?.status == 200)
    #expect(served.map { $0.took < .seconds(1) } == true)
    await server.stop()
  }

  @Test(
    "an idle kept-alive connection is closed after the idle timeout; a silent one at the header timeout"
  )
  func idle() async throws {
    let server = try await TestDaemon.web(limits: Self.limits(header: 1, idle: 1))
    let keptAlive = try HTTPSocket(port: server.httpPort)
    let silent = try HTTPSocket(port: server.httpPort)
    #expect(keptAlive.get("/openapi.json") == 200)
    usleep(500_000)
    #expect(keptAlive.get("/openapi.json") == 200, "half the idle timeout does not close it")
    let answered = ContinuousClock.now
    // The silent one first: it closes first, and each close is seen as it comes.
    #expect(silent.read(within: .seconds(3)) == false)
    #expect(silent.received.isEmpty, "nothing was asked: closed without a response")
    let silentFor = try #require(silent.lifetime)
    #expect(silentFor >= .milliseconds(900) && silentFor < .milliseconds(2000))
    #expect(keptAlive.read(within: .seconds(3)) == false)
    let idleFor = try #require(keptAlive.closedAt) - answered
    #expect(idleFor >= .milliseconds(900) && idleFor < .milliseconds(2000))
    await server.stop()
  }

  @Test("one address past its cap is answered 503, others are served; the total cap likewise")
  func connectionCaps() async throws {
    let server = try await TestDaemon.web(limits: Self.limits(max: 5, perAddress: 3))
    let port = server.httpPort
    var held = try (0..<3).map { _ in try HTTPSocket(port: port) }
    // Served: a request on each answers. (Each is admitted on its own event loop, so only an
    // answer shows it was counted before the fourth connects.)
    for socket in held { #expect(socket.get("/openapi.json") == 200) }

    let fourth = try HTTPSocket(port: port)
    #expect(fourth.get("/openapi.json") == 503)
    #expect(fourth.text.hasSuffix("too many connections\n"))
    #expect(fourth.read(within: .seconds(2)) == false, "and closed")

    let other = try HTTPSocket(port: port, from: "127.0.0.2")
    #expect(other.get("/openapi.json") == 200)
    let fifth = try HTTPSocket(port: port, from: "127.0.0.3")
    #expect(fifth.get("/openapi.json") == 200)
    let sixth = try HTTPSocket(port: port, from: "127.0.0.4")
    #expect(sixth.get("/openapi.json") == 503, "5 connections are served at most")

    // A connection closed frees its place.
    held.removeFirst()
    var status: Int?
    for _ in 0..<20 where status != 200 {
      usleep(100_000)
      status = try HTTPSocket(port: port, from: "127.0.0.4").get("/openapi.json")
    }
    #expect(status == 200)
    withExtendedLifetime((held, other, fifth)) {}
    await server.stop()
  }
}
