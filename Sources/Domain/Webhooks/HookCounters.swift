import Histogram
import NIOConcurrencyHelpers

/// One hook's metrics since the server started (HOOK.GET, INFO hooks): what was delivered,
/// retried, failed for good, dropped for want of room, and how long events took to arrive.
public final class HookCounters: Sendable {
  public struct Snapshot: Sendable, Equatable {
    public var delivered = 0
    /// Tries that failed and will be made again.
    public var retried = 0
    /// Events that ran out of tries (now dead letters).
    public var failed = 0
    /// Events not kept: the hook had `Webhooks.pendingLimit` waiting.
    public var dropped = 0
    public var pending = 0
    public var dead = 0
    /// From the event's making to its receiver's 2xx, in ms (whole: events' times are kept
    /// in ms).
    public var latencyP50 = 0.0
    public var latencyP99 = 0.0
    public var latencyMax = 0.0
  }

  private struct State {
    var snapshot = Snapshot()
    var latency = Histogram<UInt64>(
      highestTrackableValue: 86_400_000, numberOfSignificantValueDigits: .three)
  }
  private let state = NIOLockedValueBox(State())

  init(pending: Int, dead: Int) {
    state.withLockedValue { s in
      s.snapshot.pending = pending
      s.snapshot.dead = dead
    }
  }

  func delivered(latency milliseconds: Int64) {
    state.withLockedValue { s in
      s.snapshot.delivered += 1
      s.snapshot.pending -= 1
      s.latency.record(UInt64(min(max(0, milliseconds), 86_400_000)))
    }
  }

  func retried() { state.withLockedValue { $0.snapshot.retried += 1 } }

  func failed() {
    state.withLockedValue { s in
      s.snapshot.failed += 1
      s.snapshot.pending -= 1
      // The oldest dead letters past the limit are removed (`HookOutboxLimits.deadLetters`).
      s.snapshot.dead = min(s.snapshot.dead + 1, HookOutboxLimits.deadLetters)
    }
  }

  /// Events kept (`count` > 0), or refused for want of room.
  func added(_ count: Int) { state.withLockedValue { $0.snapshot.pending += count } }
  func dropped(_ count: Int) { state.withLockedValue { $0.snapshot.dropped += count } }

  /// Dead letters put back to wait.
  func replayed(_ count: Int) {
    state.withLockedValue { s in
      s.snapshot.pending += count
      s.snapshot.dead -= count
    }
  }

  var pending: Int { state.withLockedValue { $0.snapshot.pending } }

  public var snapshot: Snapshot {
    state.withLockedValue { s in
      var snapshot = s.snapshot
      if s.latency.totalCount > 0 {
        snapshot.latencyP50 = Double(s.latency.valueAtPercentile(50))
        snapshot.latencyP99 = Double(s.latency.valueAtPercentile(99))
        snapshot.latencyMax = Double(s.latency.max)
      }
      return snapshot
    }
  }
}
