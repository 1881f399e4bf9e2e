import Histogram
import NIOConcurrencyHelpers

/// Counters for INFO: per-command calls, failures and latency, and totals. Each event loop
/// records into its own shard, so recording never contends across cores; INFO merges them.
final class Statistics: Sendable {
  struct Command: Sendable {
    var calls: UInt64 = 0
    var failed: UInt64 = 0
    var nanoseconds: UInt64 = 0
    var latency = Histogram<UInt64>(
      lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000_000,
      numberOfSignificantValueDigits: .two)

    mutating func add(_ other: Command) {
      calls += other.calls
      failed += other.failed
      nanoseconds += other.nanoseconds
      latency.add(other.latency)
    }
  }

  struct Shard: Sendable {
    var commands: [String: Command] = [:]
    var processed: UInt64 = 0
    var rejected: UInt64 = 0
    var protocolErrors: UInt64 = 0
  }

  private let shards: [NIOLockedValueBox<Shard>]
  let connectionsReceived = NIOLockedValueBox<UInt64>(0)
  let rejectedConnections = NIOLockedValueBox<UInt64>(0)

  init(shards count: Int) {
    shards = (0..<max(1, count)).map { _ in NIOLockedValueBox(Shard()) }
  }

  /// Records one command on shard `shard` (the event loop's number).
  func record(shard: Int, command: String?, nanoseconds: UInt64, failed: Bool) {
    shards[shard % shards.count].withLockedValue { s in
      s.processed += 1
      guard let command else {
        s.rejected += 1
        return
      }
      s.commands[command, default: Command()].calls += 1
      s.commands[command]!.nanoseconds += nanoseconds
      _ = s.commands[command]!.latency.record(max(1, nanoseconds))
      if failed { s.commands[command]!.failed += 1 }
    }
  }

  func recordProtocolError(shard: Int) {
    shards[shard % shards.count].withLockedValue { $0.protocolErrors += 1 }
  }

  /// Commands processed, all shards.
  var processed: UInt64 {
    shards.reduce(0) { total, shard in total + shard.withLockedValue { $0.processed } }
  }

  /// Every shard merged.
  func snapshot() -> Shard {
    var total = Shard()
    for shard in shards {
      shard.withLockedValue { s in
        total.processed += s.processed
        total.rejected += s.rejected
        total.protocolErrors += s.protocolErrors
        for (name, command) in s.commands { total.commands[name, default: Command()].add(command) }
      }
    }
    return total
  }

  func reset() {
    for shard in shards { shard.withLockedValue { $0 = Shard() } }
    connectionsReceived.withLockedValue { $0 = 0 }
    rejectedConnections.withLockedValue { $0 = 0 }
  }
}
