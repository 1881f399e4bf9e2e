import Histogram
import NIOConcurrencyHelpers
import Synchronization

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

    mutating func record(nanoseconds: UInt64, failed: Bool) {
      calls += 1
      self.nanoseconds += nanoseconds
      _ = latency.record(max(1, nanoseconds))
      if failed { self.failed += 1 }
    }

    mutating func add(_ other: Command) {
      calls += other.calls
      failed += other.failed
      nanoseconds += other.nanoseconds
      latency.add(other.latency)
    }
  }

  struct Shard: Sendable {
    /// By command number; nil for commands not run yet.
    var commands: [Command?] = []
    var processed: UInt64 = 0
    var rejected: UInt64 = 0
    var protocolErrors: UInt64 = 0
  }

  private let shards: [NIOLockedValueBox<Shard>]
  /// Command names by number, as the processor gives them (set once it exists).
  let names = NIOLockedValueBox<[String]>([])
  let connectionsReceived = NIOLockedValueBox<UInt64>(0)
  let rejectedConnections = NIOLockedValueBox<UInt64>(0)
  /// Connections closed by `maxmemory-clients`, `client-query-buffer-limit` and
  /// `client-output-buffer-limit`.
  let evictedClients = Atomic<UInt64>(0)
  let queryBufferLimitDisconnections = Atomic<UInt64>(0)
  let outputBufferLimitDisconnections = Atomic<UInt64>(0)

  init(shards count: Int) {
    shards = (0..<max(1, count)).map { _ in NIOLockedValueBox(Shard()) }
  }

  /// Records one command on shard `shard` (the event loop's number); a nil `command` is an
  /// unknown one.
  func record(shard: Int, command: Int?, nanoseconds: UInt64, failed: Bool) {
    shards[shard % shards.count].withLockedValue { s in
      s.processed += 1
      guard let command else {
        s.rejected += 1
        return
      }
      if s.commands.count <= command {
        s.commands.append(contentsOf: repeatElement(nil, count: command + 1 - s.commands.count))
      }
      if case .none = s.commands[command] { s.commands[command] = Command() }
      // In place: copying a command's counters out and back retained its histogram twice.
      s.commands[command]!.record(nanoseconds: nanoseconds, failed: failed)
    }
  }

  func recordProtocolError(shard: Int) {
    shards[shard % shards.count].withLockedValue { $0.protocolErrors += 1 }
  }

  /// Commands processed, all shards.
  var processed: UInt64 {
    shards.reduce(0) { total, shard in total + shard.withLockedValue { $0.processed } }
  }

  /// Every command's counters, all shards merged, by name.
  func commands() -> [String: Command] {
    let names = self.names.withLockedValue { $0 }
    var total: [String: Command] = [:]
    for shard in shards {
      shard.withLockedValue { s in
        for (id, command) in s.commands.enumerated() {
          if let command, id < names.count { total[names[id], default: Command()].add(command) }
        }
      }
    }
    return total
  }

  /// Commands answered with an unknown-command error, and protocol errors, all shards.
  var errors: (rejected: UInt64, protocol: UInt64) {
    shards.reduce((0, 0)) { total, shard in
      shard.withLockedValue { (total.0 + $0.rejected, total.1 + $0.protocolErrors) }
    }
  }

  func reset() {
    for shard in shards { shard.withLockedValue { $0 = Shard() } }
    connectionsReceived.withLockedValue { $0 = 0 }
    rejectedConnections.withLockedValue { $0 = 0 }
    evictedClients.store(0, ordering: .relaxed)
    queryBufferLimitDisconnections.store(0, ordering: .relaxed)
    outputBufferLimitDisconnections.store(0, ordering: .relaxed)
  }
}
