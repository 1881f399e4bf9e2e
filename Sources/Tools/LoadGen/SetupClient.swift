import NIOCore
import RESPClient

extension RESPClient {
  /// A setup connection to `server` (loading points, checks), not the load path's: a failure
  /// to connect is the run's `LoadGenError.connectFailed`.
  public static func connect(to server: ServerAddress, group: any EventLoopGroup) async throws
    -> RESPClient
  {
    do {
      return try await connect(
        host: server.host, port: server.port, name: server.description, group: group)
    } catch RESPClientError.connectFailed(let name, let reason) {
      throw LoadGenError.connectFailed(server: name, reason: reason)
    }
  }
}
