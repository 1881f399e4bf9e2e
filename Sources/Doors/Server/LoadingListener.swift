import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RESP

/// The RESP port while a node loads (over PostgreSQL a load takes seconds): every command but
/// INFO and QUIT answers Redis's `LOADING` error, as Redis does before its dataset is in memory,
/// so that clients retry rather than find the port closed. Closed, with its connections, just
/// before the server binds the port in its place.
public final class LoadingListener: Sendable {
  static let reply = "-LOADING CardAtlas is loading the dataset in memory\r\n"
  /// What a client may send meanwhile: small commands, and few connections.
  static let limits = RESPLimits(
    maxInlineLength: 4096, maxBulkLength: 64 * 1024, maxArrayLength: 64)

  private let listener: any Channel
  private let connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>

  private init(
    listener: any Channel, connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>
  ) {
    self.listener = listener
    self.connections = connections
  }

  /// Binds `host:port`, taking at most `maxClients` connections at once.
  public static func bind(host: String, port: Int, maxClients: Int) async throws -> LoadingListener
  {
    let connections = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        let id = ObjectIdentifier(channel)
        let admitted = connections.withLockedValue { open in
          guard open.count < maxClients else { return false }
          open[id] = channel
          return true
        }
        guard admitted else { return channel.close() }
        channel.closeFuture.whenComplete { _ in
          _ = connections.withLockedValue { $0.removeValue(forKey: id) }
        }
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(LoadingHandler())
        }
      }
      .bind(host: host, port: port).get()
    return LoadingListener(listener: listener, connections: connections)
  }

  /// Stops listening and closes every connection.
  public func close() async {
    try? await listener.close()
    let open = connections.withLockedValue { Array($0.values) }
    for channel in open { try? await channel.close() }
  }
}

/// One connection while the node loads.
private final class LoadingHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private var parser = RESPRequestParser(limits: LoadingListener.limits)

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    parser.append(unwrapInboundIn(data))
    var out = context.channel.allocator.buffer(capacity: 64)
    var quit = false
    do {
      while !quit, let command = try parser.next() {
        switch String(buffer: command[0]).uppercased() {
        case "QUIT":
          out.writeString("+OK\r\n")
          quit = true
        case "INFO":
          let text = "# Persistence\r\nloading:1\r\n"
          out.writeString("$\(text.utf8.count)\r\n\(text)\r\n")
        default:
          out.writeString(LoadingListener.reply)
        }
      }
    } catch {
      out.writeString("-ERR Protocol error: \(error)\r\n")
      quit = true
    }
    let written = context.writeAndFlush(wrapOutboundOut(out))
    if quit { written.whenComplete { _ in context.close(promise: nil) } }
  }
}
