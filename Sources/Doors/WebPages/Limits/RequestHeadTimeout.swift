import NIOCore
import NIOHTTPTypes

/// Closes a connection that has not sent a whole request head `timeout` after it opened, or
/// after the first byte of its next request: however slowly a client dribbles header lines
/// (slowloris), it holds the connection that long at most. Sits in front of the HTTP decoder,
/// where bytes arrive; `RequestHeadWatch`, behind it, says when a head is in.
///
/// A client that sent part of a head is answered 408 (`Farewell`); one that sent nothing is just
/// closed. Between requests, Hummingbird's idle timeout applies instead.
final class RequestHeadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = IOData

  /// What `RequestHeadWatch` reports, as an outbound event.
  enum Progress {
    case headRead, requestRead, responseWritten
  }

  private let timeout: TimeAmount
  /// True from the end of one request (or the connection's start) until the next head is in.
  private var awaitingHead = true
  private var bytesOfHead = false
  private var responsesOwed = 0
  private var timer: Scheduled<Void>?

  init(timeout: TimeAmount) { self.timeout = timeout }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { arm(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    arm(context)
    context.fireChannelActive()
  }

  func handlerRemoved(context: ChannelHandlerContext) { disarm() }

  func channelInactive(context: ChannelHandlerContext) {
    disarm()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if awaitingHead {
      bytesOfHead = true
      arm(context)
    }
    context.fireChannelRead(data)
  }

  func triggerUserOutboundEvent(
    context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?
  ) {
    guard let progress = event as? Progress else {
      return context.triggerUserOutboundEvent(event, promise: promise)
    }
    switch progress {
    case .headRead:
      (awaitingHead, bytesOfHead) = (false, false)
      responsesOwed += 1
      disarm()
    case .requestRead: awaitingHead = true
    case .responseWritten: responsesOwed -= 1
    }
    promise?.succeed()
  }

  /// Starts the clock unless it runs already.
  private func arm(_ context: ChannelHandlerContext) {
    guard timer == nil else { return }
    timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
      timer = nil
      expire(context)
    }
  }

  private func disarm() {
    timer?.cancel()
    timer = nil
  }

  private func expire(_ context: ChannelHandlerContext) {
    // A response still being written to an earlier request is let finish first.
    guard responsesOwed == 0 else { return arm(context) }
    if bytesOfHead {
      try? context.pipeline.syncOperations.addHandler(Farewell.requestTimeout(), position: .first)
    } else {
      context.close(promise: nil)
    }
  }
}

/// Behind the HTTP decoder: tells `RequestHeadTimeout` when a request's head and its end are
/// read and when its response is written.
final class RequestHeadWatch: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head: context.triggerUserOutboundEvent(RequestHeadTimeout.Progress.headRead, promise: nil)
    case .end:
      context.triggerUserOutboundEvent(RequestHeadTimeout.Progress.requestRead, promise: nil)
    case .body: break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) {
      context.triggerUserOutboundEvent(RequestHeadTimeout.Progress.responseWritten, promise: nil)
    }
    context.write(data, promise: promise)
  }
}
