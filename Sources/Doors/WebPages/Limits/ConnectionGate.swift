import Logging
import NIOCore
import RateLimits
import Synchronization

/// Decides, as each HTTP connection is accepted, whether it is served, refused with a 503 (a cap
/// reached) or closed at once (the descriptor budget spent), and counts connections until they
/// close. Shared by every event loop.
final class ConnectionGate: Sendable {
  enum Decision: Equatable {
    case serve
    /// Over `maxConnections` or `maxConnectionsPerAddress`: answered 503, then closed.
    case refuse
    /// Past the descriptor budget: closed without a word, so as to hold no descriptor longer.
    case drop
  }

  private struct State {
    var served = 0
    var servedFrom: [String: Int] = [:]
    /// Every accepted connection still open, refused ones included: each holds a descriptor.
    var open = 0
    var budget = Int.max
    var refusedSinceLog = 0
    var loggedAt: ContinuousClock.Instant?
  }

  private let limits: HTTPLimits
  private let logger: Logger
  private let state = Mutex(State())

  init(limits: HTTPLimits, logger: Logger) {
    self.limits = limits
    self.logger = logger
  }

  /// Sets the descriptor budget from the process's limit and what is open now (the server
  /// bound, its event loops and the store opened); returns it, nil when unbounded.
  @discardableResult
  func measureBudget() -> Int? {
    guard let limit = Descriptors.limit, let open = Descriptors.open else { return nil }
    let budget = max(0, limit - open - limits.reservedDescriptors)
    state.withLock { $0.budget = budget }
    return budget
  }

  func admit(_ channel: any Channel) -> Decision {
    // By the address without its port, an IPv6 one by its /64.
    let address = ClientAddress.key(channel.remoteAddress?.ipAddress ?? "")
    let decision = state.withLock { s -> Decision in
      guard s.open < s.budget else { return .drop }
      s.open += 1
      guard s.served < limits.maxConnections,
        s.servedFrom[address, default: 0] < limits.maxConnectionsPerAddress
      else { return .refuse }
      s.served += 1
      s.servedFrom[address, default: 0] += 1
      return .serve
    }
    if decision != .drop {
      channel.closeFuture.whenComplete { [self] _ in closed(address, served: decision == .serve) }
    }
    if decision != .serve { noteRefused(decision) }
    return decision
  }

  private func closed(_ address: String, served: Bool) {
    state.withLock { s in
      s.open -= 1
      guard served else { return }
      s.served -= 1
      s.servedFrom[address, default: 1] -= 1
      if s.servedFrom[address] == 0 { s.servedFrom[address] = nil }
    }
  }

  /// Logs refusals at most every 10 s: a flood of them must not flood the log too.
  private func noteRefused(_ decision: Decision) {
    let now = ContinuousClock.now
    let count = state.withLock { s -> Int? in
      s.refusedSinceLog += 1
      if let last = s.loggedAt, now - last < .seconds(10) { return nil }
      defer { (s.refusedSinceLog, s.loggedAt) = (0, now) }
      return s.refusedSinceLog
    }
    guard let count else { return }
    logger.warning(
      "HTTP connections refused",
      metadata: [
        "count": "\(count)",
        "reason": "\(decision == .drop ? "descriptor budget spent" : "connection limit reached")",
      ])
  }
}
