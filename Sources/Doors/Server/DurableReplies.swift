import Commands
import NIOConcurrencyHelpers
import RESP

/// Replies to writes the store has made durable, passed from the store's writer thread to the
/// connection's event loop. The writer completes a whole transaction's commands at once; here
/// they gather, so that the loop runs one task and the socket takes one write for all of a
/// connection's replies, not one per command (a pipelined client would cost a write syscall per
/// reply, which was most of a move's cost). Behind NIO's lock (a pthread mutex), not the
/// standard library's `Mutex`, whose futex ThreadSanitizer cannot see: it reported an `add` and
/// a `take` of two threads as a race.
final class DurableReplies: Sendable {
  private let state = NIOLockedValueBox<State>(State())

  typealias Entry = (sequence: Int, reply: RESPValue, update: SessionUpdate?)

  private struct State {
    var replies: [Entry] = []
    var scheduled = false
  }

  /// Adds a reply (and the change to the session it brings, if any); true if the caller must
  /// schedule a `take` (none is pending yet).
  func add(_ sequence: Int, _ reply: RESPValue, update: SessionUpdate? = nil) -> Bool {
    state.withLockedValue { state in
      state.replies.append((sequence, reply, update))
      defer { state.scheduled = true }
      return !state.scheduled
    }
  }

  /// Everything added since the last take; later adds schedule a new one.
  func take() -> [Entry] {
    state.withLockedValue { state in
      state.scheduled = false
      defer { state.replies = [] }
      return state.replies
    }
  }
}
