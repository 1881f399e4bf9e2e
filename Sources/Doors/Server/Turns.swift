import NIOCore

/// The connections of one event loop that handed on their turn after a large batch of replies,
/// resumed round-robin with the loop's I/O between rounds. An `execute`d task would not do:
/// the loop runs the tasks queued while it runs tasks before it polls its sockets again, so
/// connections that pipeline large queries and keep re-queueing themselves would keep every
/// other connection on the loop waiting until theirs stop (a PING waited 12 s behind eight).
/// A round queued for a moment after the last one ends is not yet due when the loop looks for
/// more tasks, so the loop reads its sockets first.
final class Turns: @unchecked Sendable {  // Only its event loop touches it.
  private let eventLoop: EventLoop
  private var waiting: [() -> Void] = []
  private var scheduled = false

  /// How long after a round the next is due: short, as it delays a large reply to a client
  /// that does read it, but past the loop's next look for ready tasks.
  private static let gap = TimeAmount.microseconds(20)

  init(eventLoop: EventLoop) { self.eventLoop = eventLoop }

  /// Runs `resume` in the next round.
  func add(_ resume: @escaping () -> Void) {
    eventLoop.assertInEventLoop()
    waiting.append(resume)
    scheduleRound()
  }

  private func scheduleRound() {
    guard !scheduled, !waiting.isEmpty else { return }
    scheduled = true
    eventLoop.scheduleTask(in: Self.gap) { [self] in
      let round = waiting
      waiting = []
      for resume in round { resume() }
      scheduled = false
      scheduleRound()
    }
  }
}
