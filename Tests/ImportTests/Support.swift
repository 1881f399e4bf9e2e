import Foundation
import GRDB
import RedisTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct TestFailure: Error, CustomStringConvertible { var description: String }

/// The repository's data/ folder (the gazetteer), found from this file.
let dataFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("data")

/// A temporary folder, removed by `remove()`.
struct Scratch {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "import-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
  func write(_ name: String, _ text: String) throws -> String {
    try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    return path(name)
  }
  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A started `cardatlas` process with its output collected into files.
final class Program {
  let process = ChildProcess()
  let out: String
  let err: String

  init(_ arguments: [String], in scratch: Scratch, name: String = "run") throws {
    out = scratch.path("\(name)-\(UUID().uuidString).out")
    err = scratch.path("\(name)-\(UUID().uuidString).err")
    FileManager.default.createFile(atPath: out, contents: nil)
    FileManager.default.createFile(atPath: err, contents: nil)
    process.executableURL = try CardAtlasExecutable.url()
    process.arguments = arguments
    process.currentDirectoryURL = scratch.url
    var environment = ProcessInfo.processInfo.environment
    environment["CARDATLAS_DATA"] = dataFolder.path
    process.environment = environment
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle(forWritingAtPath: err)
    try process.run()
  }

  /// Waits for the exit; returns (stdout, stderr, status).
  func finish() -> (out: String, err: String, status: Int32) {
    process.waitUntilExit()
    return (
      (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
      (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", process.terminationStatus
    )
  }

  func signal(_ number: Int32) { kill(process.processIdentifier, number) }
}

/// `cardatlas import ...`, run to its end.
func runImport(_ arguments: [String], in scratch: Scratch) throws -> (
  out: String, err: String, status: Int32
) {
  try Program(["import"] + arguments, in: scratch, name: "import").finish()
}

/// A `cardatlas serve` on a free port with a temporary data directory and an admin password;
/// stopped by `stop()`.
final class Daemon {
  static let password = "import-admin-pw"
  let port: UInt16
  let program: Program

  /// `adminPassword` false: no `--requirepass`, every client is the admin.
  init(data: String, in scratch: Scratch, adminPassword: Bool = true) throws {
    port = try freePort()
    program = try Program(
      ["serve", "--port", String(port), "--data", data]
        + (adminPassword ? ["--requirepass", Self.password] : []),
      in: scratch, name: "serve")
    for _ in 0..<300 {
      if (try? RESPConnection(port: port)) != nil { return }
      usleep(100_000)
    }
    stop()
    throw TestFailure(description: "the daemon did not start")
  }

  var address: String { "127.0.0.1:\(port)" }

  /// A connection signed in as the admin.
  func admin() throws -> RESPConnection {
    let connection = try RESPConnection(port: port)
    try connection.command("AUTH", Self.password)
    return connection
  }

  /// A connection signed in as a new account (CARD.SEARCH needs one).
  func member(_ email: String = "viewer@example.com") throws -> RESPConnection {
    let connection = try RESPConnection(port: port)
    let password = "a long viewer password"
    try connection.command("ACCOUNT.CREATE", email, password)
    let opened = try connection.command("SESSION.OPEN", email, password)
    guard !opened.text.hasPrefix("-") else { throw TestFailure(description: opened.text) }
    return connection
  }

  private var stopped = false

  /// Stops the daemon (SIGTERM) and waits for it; again, does nothing.
  func stop() {
    guard !stopped else { return }
    stopped = true
    program.signal(SIGTERM)
    _ = program.finish()
  }
}

func freePort() throws -> UInt16 {
  #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
  #endif
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
    }
  }
  guard bound else { throw TestFailure(description: "no free port") }
  return UInt16(bigEndian: address.sin_port)
}

/// Every card in a data directory, without what differs between runs (ids, codes, slugs,
/// timestamps): owner email, external id (`-` for a card not imported), whether primary, fields
/// JSON; and the owners.
struct CardSet: Equatable {
  var cards: [String]
  var accounts: [String]

  init(data: String) throws {
    let queue = try DatabaseQueue(path: data + "/cardatlas.sqlite")
    (cards, accounts) = try queue.read { db in
      (
        try String.fetchAll(
          db,
          sql: """
            SELECT a.email || ' ' || coalesce(c.external_id, '-') || ' ' || c.is_primary || ' ' || c.fields
            FROM cards c JOIN accounts a ON a.id = c.owner_id ORDER BY a.email, c.external_id
            """),
        try String.fetchAll(
          db,
          sql: """
            SELECT email || ' ' || (password_hash IS NULL) FROM accounts ORDER BY email
            """)
      )
    }
  }
}

/// The report's rows as dictionaries by column name.
func reportRows(_ path: String) throws -> [[String: String]] {
  let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
  guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false) else {
    return []
  }
  return lines.dropFirst().map { line in
    var fields: [String] = []
    var current = ""
    var quoted = false
    var last: Character?
    for character in line {
      defer { last = character }
      if character == "\"" {
        // A quote in a quoted field is written twice: the second reopens it, and is kept.
        if !quoted, last == "\"" { current.append("\"") }
        quoted.toggle()
      } else if character == ",", !quoted {
        fields.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    fields.append(current)
    return Dictionary(uniqueKeysWithValues: zip(header.map(String.init), fields))
  }
}
