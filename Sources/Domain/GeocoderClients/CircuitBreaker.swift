import Synchronization

/// Stops calling a service that keeps failing: after `threshold` failures in a row it opens and
/// every call fails fast; after `coolDown` it half-opens and lets one trial call through, which
/// closes it on success or opens it again on failure.
public final class CircuitBreaker: Sendable {
  public let threshold: Int
  public let coolDown: Duration

  public enum State: Equatable, Sendable {
    case closed(failures: Int)
    case open(until: ContinuousClock.Instant)
    /// One trial is in flight.
    case halfOpen
  }
  private let state = Mutex(State.closed(failures: 0))

  public init(threshold: Int = 5, coolDown: Duration = .seconds(30)) {
    precondition(threshold >= 1)
    self.threshold = threshold
    self.coolDown = coolDown
  }

  public var current: State { state.withLock { $0 } }

  /// Whether a call may go: nil if so, else the seconds until the next trial.
  public func permit() -> Double? {
    state.withLock { s in
      switch s {
      case .closed: return nil
      case .halfOpen: return coolDown.seconds
      case .open(let until):
        let now = ContinuousClock.now
        if now < until { return (until - now).seconds }
        s = .halfOpen
        return nil
      }
    }
  }

  public func succeeded() {
    state.withLock { $0 = .closed(failures: 0) }
  }

  /// A call that ended without telling whether the service works (cancelled): a trial it was
  /// gives way to the next call.
  public func abandoned() {
    state.withLock { s in
      if s == .halfOpen { s = .open(until: .now) }
    }
  }

  public func failed() {
    state.withLock { s in
      switch s {
      case .closed(let failures) where failures + 1 < threshold: s = .closed(failures: failures + 1)
      case .open: break
      default: s = .open(until: .now + coolDown)
      }
    }
  }
}
