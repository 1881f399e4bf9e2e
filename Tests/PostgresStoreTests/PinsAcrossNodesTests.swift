import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RESP
import RedisTestSupport
import Testing

/// GeoPic's photo pins across nodes that share one PostgreSQL: a pin and its photo added on one
/// node are found and opened on another (the bytes in the database), votes travel, a node
/// restarted loads them, a deletion leaves every node and the photo's bytes; an opener's
/// travel and the limits count on every node.
@Suite("Pins across nodes over PostgreSQL", .serialized)
struct PinsAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  static func pinIds(_ connection: RESPConnection, _ arguments: String...) throws -> [Int] {
    guard case .array(let rows) = try connection.command(arguments).value else { return [] }
    return rows.compactMap { row -> Int? in
      guard case .array(let fields) = row, case .integer(let id)? = fields.first else { return nil }
      return Int(id)
    }
  }

  static func photo(_ connection: RESPConnection, _ id: Int, _ bytes: [UInt8]) throws -> String {
    try connection.command(bytes: [Array("PIN.PHOTO".utf8), Array("\(id)".utf8), bytes]).text
  }

  static func opened(_ connection: RESPConnection, _ id: Int, _ lon: String, _ lat: String)
    throws -> [UInt8]?
  {
    guard case .bulkString(let bytes) = try connection.command("PIN.OPEN", "\(id)", lon, lat).value
    else { return nil }
    return Array(buffer: bytes)
  }

  /// The rows of uploaded bytes in the database.
  static func mediaRows(_ url: String) async throws -> Int {
    let connection = try await PostgresConnector(
      location: PostgresLocation(url: url), logger: TestDatabase.logger
    ).primary()
    defer { connection.discard() }
    return try await connection.query(
      "SELECT count(*)::bigint FROM media_files", logger: TestDatabase.logger
    ).collect().first?.decode(Int.self) ?? -1
  }

  /// The rows of uploaded bytes once they reach `count` (removals run after their commit), or
  /// as they are after five seconds.
  static func mediaRows(_ url: String, reaching count: Int) async throws -> Int {
    var rows = -1
    for _ in 0..<100 {
      rows = try await mediaRows(url)
      if rows == count { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    return rows
  }

  @Test(
    "a pin and its photo added on A are found and opened on B; a vote on B counts on A; A killed with -9 loads the pin, its photo and its vote; deleted on A, the pin leaves B and its photo's bytes leave the database"
  )
  func pinsTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      var a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let ana = try RESPConnection(port: a.port)
      _ = try ana.signUp("ana@x.org")
      let pin = try ana.object("PIN.ADD", "2.35", "48.85", "100", "m", #"{"caption":"Seine"}"#)
      let id = try #require(pin["id"] as? Int)
      let jpeg = TestPhoto.jpeg(Array("the river".utf8))
      #expect(try Self.photo(ana, id, jpeg).contains("image/jpeg"))
      try await Self.synced(a.port, b.port)

      let bob = try RESPConnection(port: b.port)
      _ = try bob.signUp("bob@x.org")
      #expect(try Self.pinIds(bob, "PIN.AT", "2.35", "48.85") == [id])
      #expect(try Self.opened(bob, id, "2.35", "48.85") == jpeg, "the bytes are shared")
      #expect(try bob.text("PIN.DEL", "\(id)").hasPrefix("NOPERM"), "not bob's")
      #expect(try bob.object("PIN.VOTE", "\(id)", "UP")["ups"] as? Int == 1)
      try await Self.synced(b.port, a.port)
      #expect(try ana.object("PIN.GET", "\(id)")["ups"] as? Int == 1)

      try await a.crash(after: .zero)
      a = try NodesOverRESPTests.node(url, directory + "/a")
      let ana2 = try RESPConnection(port: a.port)
      #expect(try ana2.text("AUTH", "ana@x.org", "secret1") == "OK")
      let loaded = try ana2.object("PIN.GET", "\(id)")
      #expect(loaded["ups"] as? Int == 1 && loaded["hasPhoto"] as? Bool == true, "\(loaded)")
      #expect(try Self.opened(ana2, id, "2.35", "48.85") == jpeg)
      #expect(try await Self.mediaRows(url) == 1)

      #expect(try ana2.text("PIN.DEL", "\(id)") == "1")
      try await Self.synced(a.port, b.port)
      #expect(try Self.pinIds(bob, "PIN.AT", "2.35", "48.85").isEmpty)
      let rows = try await Self.mediaRows(url, reaching: 0)
      #expect(rows == 0, "the photo's bytes went with the pin")
    }
  }

  @Test(
    "an opener who opens a pin in Paris on A cannot open one in Tokyo on B a moment later: its travel is counted on every node"
  )
  func travelAcrossNodes() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let owner = try RESPConnection(port: a.port)
      _ = try owner.signUp("owner@x.org")
      var ids: [Int] = []
      for (lon, lat) in [("2.35", "48.85"), ("139.69", "35.68")] {
        let pin = try owner.object("PIN.ADD", lon, lat, "100", "m", "{}")
        let id = try #require(pin["id"] as? Int)
        #expect(try Self.photo(owner, id, TestPhoto.jpeg()).contains("image/jpeg"))
        ids.append(id)
      }
      let onA = try RESPConnection(port: a.port)
      _ = try onA.signUp("eve@x.org")
      try await Self.synced(a.port, b.port)
      let onB = try RESPConnection(port: b.port)
      #expect(try onB.text("AUTH", "eve@x.org", "secret1") == "OK")
      #expect(try Self.opened(onA, ids[0], "2.35", "48.85") != nil)
      try PeopleAcrossNodesTests.newsSynced(from: a.port, to: b.port)
      let refused = try onB.text("PIN.OPEN", "\(ids[1])", "139.69", "35.68")
      #expect(
        refused.hasPrefix("INVALID location") && refused.contains("km from your last PIN.OPEN"),
        "\(refused)")
    }
  }
}
