import Dispatch
import Histogram
import NIOCore
import RESP
import Synchronization

/// What the connections of one run share: the request budget, and counters the progress display
/// and the stall watchdog read while they run.
final class RunState: Sendable {
  /// Requests not yet handed out; unused when the run is bounded by time only.
  private let remaining: Atomic<Int>
  private let bounded: Bool
  /// Replies received so far, by all connections.
  let completed = Atomic<Int>(0)
  /// Connections that have stopped, successfully or not.
  let stoppedConnections = Atomic<Int>(0)

  init(requests: Int?) {
    remaining = Atomic(requests ?? 0)
    bounded = requests != nil
  }

  /// Takes up to `count` requests from the budget; 0 once it is spent.
  func claim(_ count: Int) -> Int {
    guard bounded else { return count }
    let before = remaining.wrappingSubtract(count, ordering: .relaxed).oldValue
    return max(0, min(count, before))
  }
}

/// Sent through each connection's pipeline to start it at the same moment as the others.
struct LoadStart: Sendable {
  /// When to stop sending new windows, on the monotonic clock; nil for no time limit.
  var deadline: UInt64?
}

/// What one connection measured.
struct ConnectionResult: Sendable {
  var histogram: Histogram<UInt64>
  var replies: Int
  var errors: Int
  /// Error replies by text, the first `LoadConnectionHandler.maxErrorSamples` distinct ones.
  var errorSamples: [String: Int]
  /// When its last reply arrived, on the monotonic clock.
  var finishedAt: UInt64
}

/// One load connection, as redis-benchmark's `-P` runs one: it writes a window of `pipeline`
/// requests at once, waits for all their replies, then writes the next window. A request's latency
/// runs from the write of its window to the arrival of the read that completes its reply, in
/// nanoseconds. Replies are stepped over, not built; error replies are counted and sampled.
final class LoadConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  static let maxErrorSamples = 8
  /// One hour in nanoseconds: the histogram's range (its memory grows with the log of it).
  static let highestLatency: UInt64 = 3_600_000_000_000

  private let pool: RequestPool
  private let pipeline: Int
  private let state: RunState
  private let promise: EventLoopPromise<ConnectionResult>
  private let server: String
  private var cursor: Int
  private var deadline = UInt64.max
  private var parser = RESPReplyParser()
  private var outstanding = 0
  private var windowStart: UInt64 = 0
  private var histogram = Histogram<UInt64>(
    lowestDiscernibleValue: 1, highestTrackableValue: highestLatency,
    numberOfSignificantValueDigits: .three)
  private var replies = 0
  private var errors = 0
  private var errorSamples: [String: Int] = [:]
  private var stopped = false
  /// One command sent as soon as the connection is up, before timing starts (signing in as an
  /// account); `ready` is completed by its reply, which must not be an error.
  private let preamble: ByteBuffer?
  private let ready: EventLoopPromise<Void>
  private var awaitingPreamble = false
  private var readySettled = false

  init(
    pool: RequestPool, pipeline: Int, firstRequest: Int, state: RunState, server: String,
    promise: EventLoopPromise<ConnectionResult>, preamble: ByteBuffer? = nil,
    ready: EventLoopPromise<Void>
  ) {
    self.pool = pool
    self.pipeline = pipeline
    self.cursor = firstRequest % pool.count
    self.state = state
    self.server = server
    self.promise = promise
    self.preamble = preamble
    self.ready = ready
  }

  func channelActive(context: ChannelHandlerContext) {
    if let preamble {
      awaitingPreamble = true
      context.writeAndFlush(wrapOutboundOut(preamble), promise: nil)
    } else {
      settleReady(.success(()))
    }
    context.fireChannelActive()
  }

  /// Completes `ready` once: a connection that fails before it is ready fails it.
  private func settleReady(_ result: Result<Void, any Error>) {
    guard !readySettled else { return }
    readySettled = true
    ready.completeWith(result)
  }

  /// Steps over the preamble's reply once it has arrived.
  private func readPreamble(context: ChannelHandlerContext) {
    var error: String?
    do {
      guard try parser.skip(upTo: 1, onError: { error = $0 }) == 1 else { return }
    } catch {
      return fail(context: context, reason: "\(error)")
    }
    awaitingPreamble = false
    if let error { return fail(context: context, reason: "the preamble failed: \(error)") }
    settleReady(.success(()))
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    guard let start = event as? LoadStart else {
      context.fireUserInboundEventTriggered(event)
      return
    }
    deadline = start.deadline ?? .max
    sendWindow(context: context, now: DispatchTime.now().uptimeNanoseconds)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let now = DispatchTime.now().uptimeNanoseconds
    parser.append(unwrapInboundIn(data))
    guard !stopped else { return }
    if awaitingPreamble { return readPreamble(context: context) }
    let received: Int
    do {
      received = try parser.skip(upTo: outstanding) { noteError($0) }
    } catch {
      fail(context: context, reason: "\(error)")
      return
    }
    // Every reply of the window waited since it was sent. Anything slower than the histogram's
    // range (an hour) counts as its top.
    if received > 0 {
      let latency = now &- windowStart
      if !histogram.record(latency, count: UInt64(received)) {
        histogram.record(Self.highestLatency, count: UInt64(received))
      }
    }
    outstanding -= received
    replies += received
    state.completed.add(received, ordering: .relaxed)
    if outstanding == 0 {
      guard parser.bufferedByteCount == 0 else {
        fail(context: context, reason: "the server sent more replies than requests")
        return
      }
      sendWindow(context: context, now: now)
    }
  }

  private func noteError(_ text: String) {
    errors += 1
    if errorSamples[text] != nil || errorSamples.count < Self.maxErrorSamples {
      errorSamples[text, default: 0] += 1
    }
  }

  private func sendWindow(context: ChannelHandlerContext, now: UInt64) {
    guard now < deadline else { return finish(now: now) }
    let count = state.claim(pipeline)
    guard count > 0 else { return finish(now: now) }
    if cursor + count > pool.count { cursor = 0 }
    let window = pool.window(from: cursor, count: count)
    cursor += count
    outstanding = count
    windowStart = DispatchTime.now().uptimeNanoseconds
    context.writeAndFlush(wrapOutboundOut(window), promise: nil)
  }

  private func finish(now: UInt64) {
    guard !stopped else { return }
    stopped = true
    state.stoppedConnections.add(1, ordering: .relaxed)
    promise.succeed(
      ConnectionResult(
        histogram: histogram, replies: replies, errors: errors, errorSamples: errorSamples,
        finishedAt: now))
  }

  private func fail(context: ChannelHandlerContext, reason: String) {
    guard !stopped else { return }
    stopped = true
    state.stoppedConnections.add(1, ordering: .relaxed)
    let error = LoadGenError.connectionFailed(server: server, reason: reason)
    promise.fail(error)
    settleReady(.failure(error))
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    fail(context: context, reason: "the server closed the connection after \(replies) replies")
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(context: context, reason: "\(error)")
  }

  /// The promise must be completed whatever happens to the channel.
  func handlerRemoved(context: ChannelHandlerContext) {
    fail(context: context, reason: "the connection closed after \(replies) replies")
  }
}
