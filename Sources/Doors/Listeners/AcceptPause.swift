import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// On a listening channel: when accept fails for want of descriptors or memory (EMFILE, ENFILE,
/// ENOBUFS, ENOMEM), stops watching the listener for `pause`, then watches it again.
///
/// The connection that could not be accepted stays queued, so the listener stays readable.
/// NIO's `AcceptBackoffHandler` only holds back the next read request, and after a failed accept
/// NIO leaves the listener registered for readability: its event loop woke, failed to accept and
/// woke again, spinning a core for as long as the descriptors were spent. Turning `autoRead` off
/// unregisters it from epoll until the pause is over.
public final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
  public typealias InboundIn = any Channel
  public typealias InboundOut = any Channel

  private let pause: TimeAmount
  private var resumption: Scheduled<Void>?

  public init(pause: TimeAmount = .seconds(1)) { self.pause = pause }

  public func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if resumption == nil, let error = error as? IOError,
      [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode),
      let options = context.channel.syncOptions,
      (try? options.getOption(ChannelOptions.autoRead)) == true
    {
      try? options.setOption(ChannelOptions.autoRead, value: false)
      resumption = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [self] in
        resumption = nil
        try? options.setOption(ChannelOptions.autoRead, value: true)
      }
    }
    context.fireErrorCaught(error)
  }

  public func handlerRemoved(context: ChannelHandlerContext) {
    resumption?.cancel()
    resumption = nil
  }
}
