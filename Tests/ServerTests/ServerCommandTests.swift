import Foundation
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// INFO, CLIENT, CONFIG, COMMAND, BACKUP, and the commands answered only so tools can run.
@Suite("Server commands")
struct ServerCommandTests {
  static func fields(_ info: String) -> [String: String] {
    var out: [String: String] = [:]
    for line in info.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
    }
    return out
  }

  static func text(_ value: RESPValue) -> String {
    switch value {
    case .bulkString(let b): return String(buffer: b)
    case .verbatimString(_, let t): return t
    default: return ""
    }
  }

  @Test("INFO reports every section, counts commands and their latency percentiles")
  func info() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    for i in 0..<50 { _ = try c.command("GEOADD", "k", String(i), "1", "m\(i)") }
    for _ in 0..<20 {
      _ = try c.command("GEOSEARCH", "k", "FROMLONLAT", "0", "1", "BYRADIUS", "100", "km")
    }
    _ = try c.command("NOSUCH")
    let all = Self.text(try c.command("INFO").value)
    for section in [
      "Server", "Clients", "Memory", "Persistence", "Stats", "Commandstats", "Latencystats",
      "Keyspace",
    ] {
      #expect(all.contains("# \(section)\r\n"), "section \(section)")
    }
    let f = Self.fields(all)
    #expect(f["redis_version"] == "7.0.15")
    #expect(f["connected_clients"] == "1")
    #expect(Int(f["used_memory_rss"] ?? "") ?? 0 > 0)
    #expect(f["db0"] == "keys=1,expires=0,avg_ttl=0")
    #expect(Int(f["total_commands_processed"] ?? "") ?? 0 >= 71)
    #expect(f["unknown_commands"] == "1")
    #expect(f["cmdstat_geoadd"]?.hasPrefix("calls=50,") == true)
    #expect(f["cmdstat_geosearch"]?.hasPrefix("calls=20,") == true)
    #expect(f["latency_percentiles_usec_geosearch"]?.hasPrefix("p50=") == true)
    // The tables follow the journal: once it has nothing unapplied, they hold every GEOADD.
    var persistence = f
    for _ in 0..<600 where persistence["journal_unapplied_bytes"] != "0" {
      try await Task.sleep(for: .milliseconds(50))
      persistence = Self.fields(Self.text(try c.command("INFO", "persistence").value))
    }
    #expect(persistence["journal_unapplied_bytes"] == "0")
    #expect(
      Int(persistence["store_commands"] ?? "") ?? 0 >= 50, "every GEOADD went through the store")
    #expect(f["instantaneous_ops_per_sec"] != nil)
    let keyspaceOnly = Self.text(try c.command("INFO", "keyspace").value)
    #expect(keyspaceOnly == "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n")
    _ = try c.command("CONFIG", "RESETSTAT")
    #expect(
      Self.fields(Self.text(try c.command("INFO", "commandstats").value))["cmdstat_geoadd"] == nil)
    await server.stop()
  }

  @Test("CLIENT ID, SETNAME, GETNAME, LIST and INFO")
  func client() async throws {
    let server = try await TestServer()
    let a = try RESPConnection(port: server.port)
    let b = try RESPConnection(port: server.port)
    guard case .integer(let id) = try a.command("CLIENT", "ID").value else {
      Issue.record("CLIENT ID is not an integer")
      return
    }
    #expect(try a.command("CLIENT", "GETNAME").text == "$-1\r\n")
    #expect(try a.command("CLIENT", "SETNAME", "mapper").text == "+OK\r\n")
    #expect(try a.command("CLIENT", "GETNAME").text == "$6\r\nmapper\r\n")
    _ = try b.command("SELECT", "4")
    let list = Self.text(try b.command("CLIENT", "LIST").value)
    let lines = list.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.contains { $0.hasPrefix("id=\(id) ") && $0.contains(" name=mapper ") })
    #expect(lines.contains { $0.contains(" db=4 ") && $0.contains(" cmd=select") })
    #expect(Self.text(try a.command("CLIENT", "INFO").value).hasPrefix("id=\(id) "))
    await server.stop()
  }

  @Test("CONFIG GET and SET, COMMAND, DEBUG and FUNCTION FLUSH")
  func configAndCommand() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    #expect(
      try c.command("CONFIG", "GET", "maxclients").text
        == "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n")
    #expect(try c.command("CONFIG", "SET", "maxclients", "50").text == "+OK\r\n")
    #expect(
      try c.command("CONFIG", "GET", "maxcl*").text == "*2\r\n$10\r\nmaxclients\r\n$2\r\n50\r\n")
    #expect(
      try c.command("CONFIG", "SET", "maxclients", "lots").text.hasPrefix("-ERR CONFIG SET failed"))
    #expect(try c.command("CONFIG", "SET", "nosuch", "1").text.hasPrefix("-ERR Unknown option"))
    #expect(try c.command("CONFIG", "SET", "port", "1").text.contains("can't set immutable config"))
    guard case .integer(let count) = try c.command("COMMAND", "COUNT").value else {
      Issue.record("COMMAND COUNT")
      return
    }
    #expect(count >= 30)
    guard case .array(let infos) = try c.command("COMMAND", "INFO", "geoadd", "nosuch").value else {
      Issue.record("COMMAND INFO")
      return
    }
    #expect(infos.count == 2)
    if case .array(let geoadd) = infos[0] { #expect(geoadd.count == 10) }
    #expect(try c.command("DEBUG", "RELOAD").text == "+OK\r\n")
    #expect(try c.command("FUNCTION", "FLUSH").text == "+OK\r\n")
    await server.stop()
  }

  @Test("BACKUP writes a consistent copy that a new server opens with the same data")
  func backup() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    var args = ["GEOADD", "places"]
    for i in 0..<300 { args += [String(Double(i) / 10), String(Double(i) / 20), "p\(i)"] }
    _ = try c.command(args)
    _ = try c.command("SET", "note", "kept")
    let copyDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-backup-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
      atPath: copyDirectory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: copyDirectory) }
    let path = copyDirectory + "/cardatlas.sqlite"
    let position = try c.command("GEOPOS", "places", "p42").text
    #expect(try c.command("BACKUP", path).text == "+OK\r\n")
    _ = try c.command("GEOADD", "places", "1", "1", "after-the-backup")
    await server.stop()
    let restored = try await TestServer { $0.dataDirectory = copyDirectory }
    let r = try RESPConnection(port: restored.port)
    #expect(try r.command("ZCARD", "places").text == ":300\r\n")
    #expect(try r.command("GET", "note").text == "$4\r\nkept\r\n")
    #expect(try r.command("GEOPOS", "places", "p42").text == position)
    await restored.stop()
  }
}
