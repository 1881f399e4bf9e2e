import Foundation
import RedisTestSupport
import Synchronization
import Testing

@testable import GeocoderClients

enum Fixture {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static func data(_ name: String) throws -> Data {
    try Data(contentsOf: directory.appendingPathComponent(name))
  }
}

/// A transport that answers every GET with one canned response and records the URLs and
/// headers asked for.
final class StubTransport: HTTPTransport {
  let response: HTTPResponse
  private let log = Mutex<[(url: URL, headers: [String: String])]>([])

  init(status: Int = 200, body: Data) {
    response = HTTPResponse(status: status, body: body)
  }

  var requests: [(url: URL, headers: [String: String])] { log.withLock { $0 } }

  /// The query items of the last request, by name.
  var lastQuery: [String: String] {
    guard let url = requests.last?.url,
      let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
    else { return [:] }
    return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
  }

  func get(_ url: URL, headers: [String: String], timeout: Duration) async throws -> HTTPResponse {
    log.withLock { $0.append((url, headers)) }
    return response
  }
}

/// Counts the requests that go through to the real transport.
final class CountingTransport: HTTPTransport {
  let inner: any HTTPTransport
  private let counter = Atomic<Int>(0)

  init(_ inner: any HTTPTransport = URLSessionTransport()) { self.inner = inner }

  var count: Int { counter.load(ordering: .relaxed) }

  func get(_ url: URL, headers: [String: String], timeout: Duration) async throws -> HTTPResponse {
    counter.add(1, ordering: .relaxed)
    return try await inner.get(url, headers: headers, timeout: timeout)
  }
}

/// Fixtures/fault_server.py, run for one suite: a geocoder that misbehaves on demand.
final class FaultServer: Sendable {
  let port: Int
  private let process: ChildProcess
  /// Closed to stop the server: it exits when its stdin ends.
  private let input: Pipe

  init() throws {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", Fixture.directory.appendingPathComponent("fault_server.py").path,
    ]
    let output = Pipe()
    let input = Pipe()
    process.standardOutput = output
    process.standardInput = input
    try process.run()
    let handle = output.fileHandleForReading
    var line = Data()
    while let byte = try handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)) else {
      process.terminate()
      throw FaultServerError.noPort
    }
    self.port = port
    self.process = process
    self.input = input
  }

  deinit {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// A base URL whose requests get `behaviour` (see fault_server.py), counted and timed under a
  /// scenario of their own.
  func url(_ behaviour: String, scenario: String = UUID().uuidString) -> (URL, String) {
    (URL(string: "http://127.0.0.1:\(port)/\(scenario)/\(behaviour)")!, scenario)
  }

  /// The scenario's request arrival times, in seconds.
  func arrivals(_ scenario: String) async throws -> [Double] {
    let url = URL(string: "http://127.0.0.1:\(port)/log/\(scenario)")!
    let response = try await URLSessionTransport().get(url, headers: [:], timeout: .seconds(5))
    return try JSONDecoder().decode([Double].self, from: response.body)
  }
}

enum FaultServerError: Error { case noPort }

/// A port nothing listens on: bound, then closed.
func closedPort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
  }
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}
