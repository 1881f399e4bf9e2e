import Hummingbird
import NIOCore

/// A request's context with the address it came from: what tells anonymous visitors apart.
struct PageContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: SocketAddress?
  /// The request was a HEAD, answered as a GET without the body (`HeadRequests`): nobody sees
  /// the page, so it is not a view.
  var headOnly = false

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}
