import ArgumentParser
import Dispatch
import Foundation
import HookReceiver
import RESPClient

struct BenchHooks: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hooks",
    abstract: "Time webhook delivery from a running server to a receiver in this process.",
    discussion: """
      Against a server started with --hooks-allow-insecure: starts a receiver (Hummingbird, \
      checking every signature), sets a fence and a hook to the receiver, then (1) sends \
      --events GEOADDs, each making one event, pipelined over --connections connections, and \
      reports the events delivered a second, from the first write to the last delivery; \
      (2) sends --probes GEOADDs paced at --rate a second, each waiting for its reply, and \
      reports the time from each reply to its event's arrival at the receiver.
      """)

  @Option(help: "The server's RESP port.") var port: UInt16 = 7878
  @Option(help: "Events for the throughput run.") var events = 100_000
  @Option(help: "Connections sending them.") var connections = 8
  @Option(help: "The hook's requests in flight.") var concurrency = 16
  @Option(help: "The hook's events a request (1: one a POST).") var batch = 1
  @Option(help: "Probes for the latency run.") var probes = 5_000
  @Option(help: "Probes a second.") var rate = 1_000

  func run() async throws {
    let receiver = HookReceiver()
    let receiverPort = try await receiver.start()
    let admin = try RESPConnection(port: port)
    let key = "bench:hooks:\(UInt32.random(in: 0...UInt32.max))"
    _ = try admin.command(
      "FENCE.SET", "bench-hook", "KEY", key, "CIRCLE", "0", "0", "1", "km", "DETECT", "enter")
    let secret = try admin.command(
      "HOOK.SET", "bench", "http://127.0.0.1:\(receiverPort)/hook", "FENCES", "bench-hook",
      "CONCURRENCY", "\(concurrency)", "BATCH", "\(batch)")
    guard case .bulkString(let text) = secret.value else {
      throw ValidationError(
        "HOOK.SET: \(secret.text) (is the server run with --hooks-allow-insecure?)")
    }
    receiver.setSecret(String(buffer: text))

    // Throughput.
    let clock = ContinuousClock()
    let started = clock.now
    let perConnection = events / connections
    try await withThrowingTaskGroup(of: Void.self) { group in
      for c in 0..<connections {
        group.addTask { [port] in
          let connection = try RESPConnection(port: port)
          connection.keepsRawReplies = false
          var sent = 0
          while sent < perConnection {
            let batch = min(200, perConnection - sent)
            try connection.send(
              commands: (sent..<sent + batch).map { ["GEOADD", key, "0", "0", "t\(c)-\($0)"] })
            for _ in 0..<batch { _ = try connection.reply() }
            sent += batch
          }
        }
      }
      try await group.waitForAll()
    }
    let acknowledged = clock.now - started
    let total = perConnection * connections
    guard await receiver.wait(upTo: .seconds(600), until: { _ in receiver.events >= total }) else {
      throw ValidationError("only \(receiver.events) of \(total) events arrived")
    }
    let delivered = clock.now - started
    let got = receiver.deliveries
    let unsigned = got.filter { !$0.verified }.count
    print(
      "throughput: \(total) events in \(receiver.count) requests; writes acknowledged in \(seconds(acknowledged)) s, "
        + "delivered in \(seconds(delivered)) s: "
        + "\(String(format: "%.0f", Double(total) / seconds(delivered))) events/s delivered; "
        + "\(unsigned) signatures failed; \(Set(got.map(\.id)).count) distinct ids")

    // Latency, paced.
    let before = receiver.events
    let prober = try RESPConnection(port: port)
    var acknowledgedAt: [String: UInt64] = [:]
    let interval = 1e9 / Double(rate)
    let origin = DispatchTime.now().uptimeNanoseconds
    for i in 0..<probes {
      let due = origin + UInt64(Double(i) * interval)
      while DispatchTime.now().uptimeNanoseconds < due { usleep(50) }
      let member = "p\(i)"
      _ = try prober.command("GEOADD", key, "0", "0", member)
      acknowledgedAt[member] = DispatchTime.now().uptimeNanoseconds
    }
    guard
      await receiver.wait(upTo: .seconds(120), until: { _ in receiver.events >= before + probes })
    else {
      throw ValidationError("only \(receiver.events - before) of \(probes) probes arrived")
    }
    var latencies: [Double] = []
    for delivery in receiver.deliveries {
      guard let event = delivery.object["event"] as? [String: Any],
        let member = event["member"] as? String, let sent = acknowledgedAt[member]
      else { continue }
      latencies.append(Double(Int64(delivery.arrived) - Int64(sent)) / 1e6)
    }
    latencies.sort()
    func percentile(_ p: Double) -> String {
      String(format: "%.2f", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))])
    }
    print(
      "latency: \(latencies.count) probes at \(rate)/s, acknowledgement to arrival: "
        + "p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, max \(percentile(1)) ms")
    print("hook: \(try admin.command("HOOK.GET", "bench").text)")
    _ = try admin.command("HOOK.DEL", "bench")
    _ = try admin.command("FENCE.DEL", "bench-hook")
    _ = try admin.command("DEL", key)
    await receiver.stop()
  }

  private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
