import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 channel behind `HTTPLimits`: each accepted connection passes the
/// `ConnectionGate` first; a served one gets `RequestHeadTimeout` in front of the HTTP codec and
/// Hummingbird's idle timeout.
struct LimitedHTTP1Channel: ServerChildChannel {
  enum Value: ServerChildChannelValue {
    case served(HTTP1Channel.Value)
    /// Refused or dropped: its handlers finish with it, nothing handles requests.
    case turnedAway(any Channel)

    var channel: any Channel {
      switch self {
      case .served(let value): value.channel
      case .turnedAway(let channel): channel
      }
    }
  }

  let http: HTTP1Channel
  let headerTimeout: TimeAmount?
  let gate: ConnectionGate

  /// The server builder for `Application`.
  static func builder(limits: HTTPLimits, gate: ConnectionGate) -> HTTPServerBuilder {
    let headerTimeout = limits.headerTimeout.map { TimeAmount($0) }
    let configuration = HTTP1Channel.Configuration(
      additionalChannelHandlers: headerTimeout == nil ? [] : [RequestHeadWatch()],
      idleTimeout: limits.idleTimeout.map { TimeAmount($0) })
    return HTTPServerBuilder { responder in
      LimitedHTTP1Channel(
        http: HTTP1Channel(responder: responder, configuration: configuration),
        headerTimeout: headerTimeout, gate: gate)
    }
  }

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    switch gate.admit(channel) {
    case .serve:
      if let headerTimeout {
        do {
          try channel.pipeline.syncOperations.addHandler(
            RequestHeadTimeout(timeout: headerTimeout))
        } catch {
          return channel.eventLoop.makeFailedFuture(error)
        }
      }
      return http.setup(channel: channel, logger: logger).map { .served($0) }
    case .refuse:
      return channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(Farewell.tooManyConnections())
        return .turnedAway(channel)
      }
    case .drop:
      channel.close(promise: nil)
      return channel.eventLoop.makeSucceededFuture(.turnedAway(channel))
    }
  }

  func handle(value: Value, logger: Logger) async {
    if case .served(let value) = value { await http.handle(value: value, logger: logger) }
  }
}
