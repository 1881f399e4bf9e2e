import Synchronization

/// A failed commit's outcome the store learns later: the connection failed during COMMIT and no
/// database could be asked then whether it went through. The store goes on asking. What a
/// write that never reaches the store sets back (a count of writes whose feed rows are awaited,
/// memory reloaded from the database) waits for the answer: a commit that went through brings
/// its own feed row back, and that row counts it.
public final class OutcomeLater: Sendable {
  private struct State {
    var committed: Bool?
    var waiting: [@Sendable (Bool) -> Void] = []
  }

  private let state = Mutex(State())

  public init() {}

  /// Runs `body` with whether the commit went through, once the store knows (at once if it
  /// does).
  public func whenKnown(_ body: @escaping @Sendable (_ committed: Bool) -> Void) {
    let known = state.withLock { s -> Bool? in
      if s.committed == nil { s.waiting.append(body) }
      return s.committed
    }
    if let known { body(known) }
  }

  /// The store's answer; later answers are ignored.
  public func settle(committed: Bool) {
    let waiting = state.withLock { s -> [@Sendable (Bool) -> Void] in
      guard s.committed == nil else { return [] }
      s.committed = committed
      defer { s.waiting = [] }
      return s.waiting
    }
    for body in waiting { body(committed) }
  }
}

/// Runs `undo` for a failed commit, what a write that never reaches the store sets back: at
/// once, or, when the store does not know yet whether the commit went through, once it learns
/// that it did not.
public func unlessCommittedLater(_ error: any Error, _ undo: @escaping @Sendable () -> Void) {
  guard let later = (error as? any StoreFailure)?.outcomeLater else { return undo() }
  later.whenKnown { committed in if !committed { undo() } }
}
