import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A browser as the account pages see one, over real sockets: it keeps the cookies the server
/// sets (by name, as a browser sends them back), follows no redirect (the test reads each 303
/// and its cookies), and sends forms urlencoded, or multipart with files. It says where it
/// comes from (`Origin`, `Sec-Fetch-Site`) as a browser does, unless told otherwise.
final class FormBrowser: NSObject, URLSessionTaskDelegate, Sendable {
  let origin: String
  let cookies = Mutex<[String: String]>([:])
  /// Every `Set-Cookie` header received, as sent.
  let setCookies = Mutex<[String]>([])

  init(port: Int) {
    origin = "http://127.0.0.1:\(port)"
  }

  struct Page {
    let status: Int
    let text: String
    let headers: [String: String]
    var location: String? { headers["Location"] }
    /// The first form's CSRF token.
    var csrf: String? { Self.value(of: "csrf", in: text) }

    /// The `value` of the first input named `name`.
    static func value(of name: String, in html: String) -> String? {
      guard let at = html.range(of: #"name="\#(name)" value=""#) else { return nil }
      let rest = html[at.upperBound...]
      return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
  }

  func get(_ path: String) async throws -> Page {
    try await send("GET", path, body: nil, type: nil, headers: [:])
  }

  /// POSTs `fields` (urlencoded), or with `files` as multipart; `headers` replace the
  /// browser's own (an `Origin` elsewhere, say).
  func post(
    _ path: String, _ fields: [String: String], files: [String: [UInt8]] = [:],
    headers: [String: String] = ["Origin": "", "Sec-Fetch-Site": "same-origin"]
  ) async throws -> Page {
    var headers = headers
    if headers["Origin"] == "" { headers["Origin"] = origin }
    if files.isEmpty {
      let body = fields.sorted { $0.key < $1.key }.map {
        "\(Self.encode($0.key))=\(Self.encode($0.value))"
      }.joined(separator: "&")
      return try await send(
        "POST", path, body: Data(body.utf8), type: "application/x-www-form-urlencoded",
        headers: headers)
    }
    let boundary = "----form\(UUID().uuidString)"
    var body = Data()
    for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
      body.append(
        Data(
          "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            .utf8))
    }
    for (name, bytes) in files {
      body.append(
        Data(
          ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"f\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n").utf8))
      body.append(Data(bytes))
      body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return try await send(
      "POST", path, body: body, type: "multipart/form-data; boundary=\(boundary)",
      headers: headers)
  }

  /// A raw request: a body of any type.
  func send(
    _ method: String, _ path: String, body: Data?, type: String?, headers: [String: String]
  ) async throws -> Page {
    var request = URLRequest(url: URL(string: origin + path)!)
    request.httpMethod = method
    request.httpBody = body
    request.httpShouldHandleCookies = false
    if let type { request.setValue(type, forHTTPHeaderField: "Content-Type") }
    let cookie = cookies.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
    if !cookie.isEmpty { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else {
      throw URLError(.badServerResponse)
    }
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    if let set = fields["Set-Cookie"] { keep(set) }
    return Page(
      status: http.statusCode, text: String(decoding: data, as: UTF8.self), headers: fields)
  }

  /// A `Set-Cookie` header's cookie kept, or dropped when it expires now.
  private func keep(_ header: String) {
    setCookies.withLock { $0.append(header) }
    let first = header.split(separator: ";")[0].split(
      separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard first.count == 2 else { return }
    let (name, value) = (String(first[0]).trimmingCharacters(in: .whitespaces), String(first[1]))
    cookies.withLock { $0[name] = header.contains("Max-Age=0") ? nil : value }
  }

  static func encode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}
