import NIOCore

/// A last response, then the connection closed: the response, then the write side, then the rest
/// once the client closes its side or a second has passed. Reading (and dropping) what the client
/// sends meanwhile lets it read the response, where closing with its bytes unread would reset the
/// connection and could lose it. First in the pipeline, so nothing behind it sees more input.
final class Farewell: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// For a connection over a cap.
  static func tooManyConnections() -> Farewell {
    Farewell(
      "503 Service Unavailable", body: "too many connections\n", headers: "Retry-After: 1\r\n")
  }

  /// For a request head that did not come whole in time.
  static func requestTimeout() -> Farewell { Farewell("408 Request Timeout", body: "") }

  private let response: String
  private var timer: Scheduled<Void>?

  init(_ status: String, body: String, headers: String = "") {
    response =
      "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
      + "\(headers)Connection: close\r\n\r\n\(body)"
  }

  func handlerAdded(context: ChannelHandlerContext) {
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
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

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }
}
