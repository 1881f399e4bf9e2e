import NIOCore
import NIOPosix
import RESP

/// Why an asynchronous connection could not be made or went away.
public enum RESPClientError: Error, Equatable, Sendable, CustomStringConvertible {
  case connectFailed(server: String, reason: String)
  /// The connection closed, or a reply could not be framed, with requests outstanding.
  case connectionFailed(server: String, reason: String)

  public var description: String {
    switch self {
    case .connectFailed(let server, let reason): "cannot connect to \(server): \(reason)"
    case .connectionFailed(let server, let reason): "connection to \(server) failed: \(reason)"
    }
  }
}

/// A pipelined RESP connection on SwiftNIO, for async callers (the load generator's setup and
/// checks): each `send` writes its commands at once and returns their replies in order.
public final class RESPClient: Sendable {
  /// The server as `connect` was given its name.
  public let server: String
  private let channel: any Channel

  private init(server: String, channel: any Channel) {
    self.server = server
    self.channel = channel
  }

  /// Connects to `host:port`; `name` is how errors name the server.
  public static func connect(
    host: String, port: Int, name: String, group: any EventLoopGroup
  ) async throws -> RESPClient {
    let bootstrap = ClientBootstrap.pipelined(group: group) { RESPClientHandler(server: name) }
    do {
      let channel = try await bootstrap.connect(host: host, port: port).get()
      return RESPClient(server: name, channel: channel)
    } catch {
      throw RESPClientError.connectFailed(server: name, reason: "\(error)")
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
  public func send(encoded bytes: ByteBuffer, count: Int) async throws -> [RESPValue] {
    try await submit(bytes, count: count).get()
  }

  /// Writes `count` already encoded commands now; the future holds their replies, in order.
  public func submit(_ bytes: ByteBuffer, count: Int) -> EventLoopFuture<[RESPValue]> {
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
      fail(RESPClientError.connectionFailed(server: server, reason: "\(error)"))
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    fail(
      RESPClientError.connectionFailed(server: server, reason: "the server closed the connection"))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(RESPClientError.connectionFailed(server: server, reason: "\(error)"))
    context.close(promise: nil)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    fail(RESPClientError.connectionFailed(server: server, reason: "the connection closed"))
  }

  private func fail(_ error: RESPClientError) {
    while let request = waiting.popFirst() { request.promise.fail(error) }
    replies = []
  }
}

extension ClientBootstrap {
  /// A pipelining client's connection (the load generator opens each so): no Nagle delay
  /// (pipelined requests go out at once), a bounded connect, and `handler` as its one handler.
  public static func pipelined(
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
