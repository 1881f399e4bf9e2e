import Accounts
import Assets
import CardAtlasApp
import Cards
import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import WebPages

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TestDaemon {
  /// The daemon as `serve --http-port` runs it: RESP and HTTP on ports of their own, the
  /// pages on the domain the commands use. `assets` sets the uploads' bounds, `map` the map
  /// page's options, and `limits` the HTTP side's connection limits.
  static func web(
    assets: Assets.Configuration = .init(), map: WebMap.Options = .init(),
    limits: HTTPLimits = .init(),
    accounts configureAccounts: (inout Accounts.Configuration) -> Void = { _ in },
    cards configure: (inout Cards.Configuration) -> Void = { _ in }
  ) async throws -> TestDaemon {
    var http = Daemon.HTTP()
    http.port = 0
    http.map = map
    http.limits = limits
    // The handlers get threads of their own: the test run's synchronous tests block the pool.
    http.executor = DedicatedThreads.shared
    return try await TestDaemon(
      accounts: configureAccounts, cards: configure, domain: { $0.assets = assets }, http: http)
  }

  /// The HTTP server.
  var web: WebServer { daemon.web! }

  /// An HTTP response as it arrived.
  struct Fetched {
    let status: Int
    let response: HTTPURLResponse
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
  }

  /// GET `path` on the HTTP port, over a real socket.
  func get(_ path: String, headers: [String: String] = [:]) async throws -> Fetched {
    try await fetch("GET", path, headers: headers)
  }

  /// A request of any method, with a body, over a real socket.
  func fetch(
    _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil
  )
    async throws -> Fetched
  {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(httpPort)\(path)")!)
    request.httpMethod = method
    request.httpBody = body.map { Data($0) }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (body, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else {
      throw RESPConnection.Failed(description: "not an HTTP response")
    }
    return Fetched(status: http.statusCode, response: http, body: body)
  }
}
