import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The JSON API's client side for the tests: any method, a Bearer token, a body, over a real
/// socket; and a session token from SESSION.OPEN over RESP.
extension TestDaemon {
  func send(
    _ method: String, _ path: String, token: String? = nil, body: Data? = nil,
    headers: [String: String] = [:]
  ) async throws -> Fetched {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(httpPort)\(path)")!)
    request.httpMethod = method
    request.httpBody = body
    if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else {
      throw RESPConnection.Failed(description: "not an HTTP response")
    }
    return Fetched(status: http.statusCode, response: http, body: data)
  }

  func send(_ method: String, _ path: String, token: String? = nil, json: String) async throws
    -> Fetched
  {
    // FoundationNetworking refuses a GET with a body.
    try await send(method, path, token: token, body: method == "GET" ? nil : Data(json.utf8))
  }

  /// A new account, signed in over RESP, and a session token for the API.
  func member(_ email: String) throws -> (
    resp: RESPConnection, id: Int, username: String, token: String
  ) {
    let (c, id, username) = try signedIn(email)
    let token = try c.text("SESSION.OPEN", email, "secret1")
    return (c, id, username, token)
  }
}

extension TestDaemon.Fetched {
  var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
  var object: [String: Any] { json as? [String: Any] ?? [:] }
  var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
  /// The JSON error body's message.
  var error: String? { object["error"] as? String }
}

extension RESPValue {
  /// An array reply's elements; nothing for anything else.
  var elements: [RESPValue] {
    if case .array(let items) = self { return items }
    return []
  }

  var string: String? {
    switch self {
    case .bulkString(let b): String(buffer: b)
    case .simpleString(let s): s
    default: nil
    }
  }
}

extension TestDaemon {
  /// Runs `body` on new servers, stopped afterwards whether it threw or not.
  static func with(_ body: (TestDaemon) async throws -> Void) async throws {
    let servers = try await TestDaemon.web()
    do {
      try await body(servers)
    } catch {
      await servers.stop()
      throw error
    }
    await servers.stop()
  }
}
