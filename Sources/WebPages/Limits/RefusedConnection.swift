import NIOCore

/// Answers a connection over a cap with 503 and closes it: the response, then the write side,
/// then the rest once the client closes its side or a second has passed. Reading (and dropping)
/// what the client sent meanwhile lets it read the 503, where closing with its request unread
/// would reset the connection.
final class RefusedConnection: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  static let response =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n"
    + "Retry-After: 1\r\nConnection: close\r\n\r\ntoo many connections\n"

  private var timer: Scheduled<Void>?

  func handlerAdded(context: ChannelHandlerContext) {
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: Self.response)), promise: nil)
    context.close(mode: .output, promise: nil)
    timer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
      context.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

  func channelInactive(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }
}
