import Hummingbird
import NIOCore

/// A request's context with the address it came from: what tells anonymous visitors apart.
struct PageContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: SocketAddress?

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}
