import NIOCore
import NIOPosix
import RESP

/// A plain pipelined RESP connection for setup and checks (loading points, counting them): each
/// `send` writes its commands at once and returns their replies in order. Not the load path.
public final class RESPClient: Sendable {
  public let server: ServerAddress
  private let channel: any Channel

  private init(server: ServerAddress, channel: any Channel) {
    self.server = server
    self.channel = channel
  }

  public static func connect(to server: ServerAddress, group: any EventLoopGroup) async throws
    -> RESPClient
  {
    let bootstrap = ClientBootstrap.loadGenerator(group: group) {
      RESPClientHandler(server: server.description)
    }
    do {
      let channel = try await bootstrap.connect(host: server.host, port: server.port).get()
      return RESPClient(server: server, channel: channel)
    } catch {
      throw LoadGenError.connectFailed(server: server.description, reason: "\(error)")
    }
  }

  /// Sends the commands in one write and returns their replies, in order.
  public func send(_ commands: [[String]]) async throws -> [RESPValue] {
    try await send(encoded: CommandEncoding.encode(commands), count: commands.count)
  }

  /// Sends one command and returns its reply.
  public func send(_ command: String...) async throws -> RESPValue {
    try await send([command])[0]
  }

  /// Sends `count` already encoded commands and returns their replies, in order.
  func send(encoded bytes: ByteBuffer, count: Int) async throws -> [RESPValue] {
    try await submit(bytes, count: count).get()
  }

  /// Writes `count` already encoded commands now; the future holds their replies, in order.
  func submit(_ bytes: ByteBuffer, count: Int) -> EventLoopFuture<[RESPValue]> {
    let promise = channel.eventLoop.makePromise(of: [RESPValue].self)
    let request = RESPClientHandler.Request(bytes: bytes, count: count, promise: promise)
    // A write that fails (the connection is gone) never reaches the handler's queue.
    let written = channel.eventLoop.makePromise(of: Void.self)
    written.futureResult.whenFailure { promise.fail($0) }
    channel.writeAndFlush(request, promise: written)
    return promise.futureResult
  }

  public func close() async {
    try? await channel.close()
  }
}

/// Matches replies to the requests written, in order.
private final class RESPClientHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = Request
  typealias OutboundOut = ByteBuffer

  struct Request: Sendable {
    var bytes: ByteBuffer
    var count: Int
    var promise: EventLoopPromise<[RESPValue]>
  }

  private let server: String
  private var parser = RESPReplyParser()
  private var waiting = CircularBuffer<Request>()
  private var replies: [RESPValue] = []

  init(server: String) {
    self.server = server
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let request = unwrapOutboundIn(data)
    if request.count == 0 {
      request.promise.succeed([])
      promise?.succeed(())
      return
    }
    waiting.append(request)
    context.write(wrapOutboundOut(request.bytes), promise: promise)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    parser.append(unwrapInboundIn(data))
    do {
      while let reply = try parser.next() {
        guard let current = waiting.first else {
          throw RESPReplyError("a reply no request asked for")
        }
        replies.append(reply)
        if replies.count == current.count {
          waiting.removeFirst()
          let done = replies
          replies = []
          current.promise.succeed(done)
        }
      }
    } catch {
      fail(LoadGenError.connectionFailed(server: server, reason: "\(error)"))
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    fail(LoadGenError.connectionFailed(server: server, reason: "the server closed the connection"))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(LoadGenError.connectionFailed(server: server, reason: "\(error)"))
    context.close(promise: nil)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    fail(LoadGenError.connectionFailed(server: server, reason: "the connection closed"))
  }

  private func fail(_ error: LoadGenError) {
    while let request = waiting.popFirst() { request.promise.fail(error) }
    replies = []
  }
}

extension ClientBootstrap {
  /// A connection as every client of the load generator opens one: no Nagle delay (pipelined
  /// requests go out at once), a bounded connect, and `handler` as its one handler.
  static func loadGenerator(
    group: any EventLoopGroup,
    handler: @escaping @Sendable () -> some ChannelHandler
  ) -> ClientBootstrap {
    ClientBootstrap(group: group)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(10))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(handler())
        }
      }
  }
}
