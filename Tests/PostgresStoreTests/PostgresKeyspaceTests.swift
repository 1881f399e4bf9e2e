import Datasets
import Geodesy
import Keyspace
import NIOConcurrencyHelpers
import NIOCore
import PostgresKeyspaceStore
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// Nodes sharing one PostgreSQL database through the keyspace and the change feed.
@Suite("Keyspace over PostgreSQL", .serialized)
struct PostgresKeyspaceTests {
  /// One node: its keyspace over the store.
  struct Node: Sendable {
    let store: PostgresStore
    let keyspace: PostgresKeyspace
    /// Whether its follower found rows it had not applied pruned.
    let fellBehind: NIOLockedValueBox<Bool>

    static func open(
      _ database: TestDatabase, retention: FeedRetention = FeedRetention()
    ) async throws -> Node {
      let store = try await PostgresStore(
        location: database.location, migrations: KeyspaceTables.migrations,
        retention: retention, logger: TestDatabase.logger)
      let fellBehind = NIOLockedValueBox(false)
      return Node(
        store: store,
        keyspace: try await PostgresKeyspace(
          store: store, keyspace: Keyspace(), logger: TestDatabase.logger
        ) { fellBehind.withLockedValue { $0 = true } },
        fellBehind: fellBehind)
    }

    func geoadd(_ key: String, _ member: String, _ longitude: Double, _ latitude: Double)
      async throws
    {
      let score = Double(RedisGeohash.score(longitude: longitude, latitude: latitude)!)
      try await keyspace.write { writer in
        let set = writer.sortedSet(db: 0, key: Bytes(key.utf8))
        writer.upsert(
          db: 0, key: Bytes(key.utf8), set: set, member: Bytes(member.utf8), score: score)
      }
    }

    func zrem(_ key: String, _ member: String) async throws {
      try await keyspace.write { writer in
        if case .sortedSet(let set)? = writer.database(0)[Bytes(key.utf8)] {
          writer.remove(db: 0, key: Bytes(key.utf8), set: set, member: Bytes(member.utf8))
        }
      }
    }

    func set(_ key: String, _ value: String) async throws {
      try await keyspace.write {
        $0.setString(db: 0, key: Bytes(key.utf8), value: Bytes(value.utf8))
      }
    }

    func del(_ key: String) async throws {
      try await keyspace.write { $0.delete(db: 0, key: Bytes(key.utf8)) }
    }

    func flush() async throws { try await keyspace.write { $0.flush(db: 0) } }

    /// Database 0 as `key → member → score` (a string: its value as the one member, score -1).
    var contents: [String: [String: Double]] {
      keyspace.keyspace.read(db: 0) { database in
        var out: [String: [String: Double]] = [:]
        for key in database.keys {
          let name = String(decoding: key, as: UTF8.self)
          switch database[key] {
          case .sortedSet(let set)?:
            for (member, score) in set.entries(ranks: 0...(set.count - 1), reverse: false) {
              out[name, default: [:]][String(decoding: member, as: UTF8.self)] = score
            }
          case .string(let value)?: out[name] = [String(decoding: value, as: UTF8.self): -1]
          case nil: break
          }
        }
        return out
      }
    }

    /// Waits until this node has applied every commit made so far.
    func catchUp() async throws {
      let position = try await store.snapshot { _, position in position.id }
      #expect(await keyspace.waitUntilApplied(position), "caught up to \(position)")
    }

    func close() async { await keyspace.close() }
  }

  /// Runs `body` on a throwaway database; every node it opens is closed after, thrown or not
  /// (a connection dropped unclosed is a crash in postgres-nio).
  static func withDatabase(
    retention: FeedRetention = FeedRetention(),
    _ body: (TestDatabase, _ open: () async throws -> Node) async throws -> Void
  ) async throws {
    let database = try await TestDatabase.make()
    let opened = NIOLockedValueBox<[Node]>([])
    var failure: (any Error)?
    do {
      try await body(database) {
        let node = try await Node.open(database, retention: retention)
        opened.withLockedValue { $0.append(node) }
        return node
      }
    } catch {
      failure = error
      Issue.record("\(String(reflecting: error))")
    }
    for node in opened.withLockedValue({ $0 }) { await node.close() }
    await database.drop()
    if let failure { throw failure }
  }

  /// What the database holds, read with SQL as any client would.
  static func stored(_ database: TestDatabase) async throws -> [String: [String: Double]] {
    try await database.connect { connection in
      var out: [String: [String: Double]] = [:]
      let rows = try await connection.query(
        "SELECT key, member, score FROM geo_members WHERE db = 0", logger: TestDatabase.logger)
      for try await (key, member, score) in rows.decode((ByteBuffer, ByteBuffer, Double).self) {
        out[String(buffer: key), default: [:]][String(buffer: member)] = score
      }
      let strings = try await connection.query(
        "SELECT key, value FROM strings WHERE db = 0", logger: TestDatabase.logger)
      for try await (key, value) in strings.decode((ByteBuffer, ByteBuffer).self) {
        #expect(out[String(buffer: key)] == nil, "a key in both tables")
        out[String(buffer: key)] = [String(buffer: value): -1]
      }
      return out
    }
  }

  @Test("a write on one node reaches the others; a node started later loads it; GIS reads it")
  func writesTravel() async throws {
    try await Self.withDatabase { database, open in
      let a = try await open()
      let b = try await open()
      try await a.geoadd("cards", "zurich", 8.5417, 47.3769)
      try await b.geoadd("cards", "vaduz", 9.5209, 47.1410)
      try await a.set("greeting", "hello")
      try await a.catchUp()
      try await b.catchUp()
      #expect(a.contents == b.contents)
      #expect(a.contents["cards"]?.count == 2 && a.contents["greeting"] == ["hello": -1])

      try await b.zrem("cards", "zurich")
      try await b.del("greeting")
      try await a.catchUp()
      #expect(a.contents == ["cards": b.contents["cards"]!])

      let c = try await open()
      #expect(c.contents == a.contents)
      #expect(try await Self.stored(database) == a.contents)

      // The members are PostGIS points under a GiST index: a GIS query finds Vaduz near Schaan.
      let near = try await database.connect { connection in
        try await connection.query(
          """
          SELECT convert_from(member, 'UTF8'), ST_X(geom), ST_Y(geom) FROM geo_members
          WHERE ST_DWithin(geom::geography, ST_MakePoint(9.5095, 47.1651)::geography, 5000)
          """, logger: TestDatabase.logger
        ).collect().map { try $0.decode((String, Double, Double).self) }
      }
      #expect(near.count == 1 && near.first?.0 == "vaduz")
      #expect(
        abs((near.first?.1 ?? 0) - 9.5209) < 1e-5 && abs((near.first?.2 ?? 0) - 47.1410) < 1e-5)
      let indexes = try await database.connect { connection in
        try await connection.query(
          "SELECT indexdef FROM pg_indexes WHERE tablename = 'geo_members'",
          logger: TestDatabase.logger
        ).collect().map { try $0.decode(String.self) }
      }
      #expect(indexes.contains { $0.contains("USING gist (geom)") })
    }
  }

  @Test("three nodes writing the same keys at once converge on what the database holds")
  func concurrentWritersConverge() async throws {
    try await Self.withDatabase { database, open in
      var nodes: [Node] = []
      for _ in 0..<3 { nodes.append(try await open()) }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (n, node) in nodes.enumerated() {
          for worker in 0..<3 {
            group.addTask {
              var rng = SeededGenerator(seed: UInt64(n * 10 + worker))
              for _ in 0..<200 {
                let key = "k\(rng.next() % 3)"
                let member = "m\(rng.next() % 8)"
                switch rng.next() % 100 {
                case 0..<60:
                  try await node.geoadd(
                    key, member, Double(rng.next() % 3600) / 10 - 180,
                    Double(rng.next() % 1700) / 10 - 85)
                case 60..<85: try await node.zrem(key, member)
                case 85..<93: try await node.del(key)
                case 93..<98: try await node.set(key, "s\(n)")
                default: try await node.flush()
                }
              }
            }
          }
        }
        try await group.waitForAll()
      }
      for node in nodes { try await node.catchUp() }
      let stored = try await Self.stored(database)
      for (n, node) in nodes.enumerated() {
        #expect(node.contents == stored, "node \(n) holds what the database holds")
      }
      let late = try await open()
      #expect(late.contents == stored)
    }
  }

  @Test(
    "one node's random writes, queued together and merged by the group commit, leave the database holding what its keyspace holds"
  )
  func mergedWritesMatchTheKeyspace() async throws {
    try await Self.withDatabase { database, open in
      let a = try await open()
      var rng = SeededGenerator(seed: 7)
      var pending: [Task<Void, any Error>] = []
      for _ in 0..<600 {
        let key = "k\(rng.next() % 2)"
        let member = "m\(rng.next() % 4)"
        let lon = Double(rng.next() % 3600) / 10 - 180
        let lat = Double(rng.next() % 1700) / 10 - 85
        let kind = rng.next() % 100
        // Queued without waiting, so that many share a transaction.
        pending.append(
          Task {
            switch kind {
            case 0..<55: try await a.geoadd(key, member, lon, lat)
            case 55..<80: try await a.zrem(key, member)
            case 80..<88: try await a.del(key)
            case 88..<96: try await a.set(key, "s")
            default: try await a.flush()
            }
          })
      }
      for task in pending { try await task.value }
      #expect(try await Self.stored(database) == a.contents)
    }
  }

  @Test(
    "concurrent commits share transactions: fewer feed rows than commands, every one acknowledged")
  func groupCommit() async throws {
    try await Self.withDatabase { database, open in
      let a = try await open()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for i in 0..<400 {
          group.addTask { try await a.geoadd("cards", "m\(i)", Double(i % 360) - 180, 10) }
        }
        try await group.waitForAll()
      }
      let rows = try await database.connect { connection in
        try await connection.query(
          "SELECT count(*) FROM cardatlas_changes", logger: TestDatabase.logger
        )
        .collect().first!.decode(Int.self)
      }
      #expect(rows < 400, "\(rows) transactions for 400 commands")
      #expect(try await Self.stored(database)["cards"]?.count == 400)
    }
  }

  @Test("a follower whose connection is killed reconnects and applies every row once, in order")
  func followerSurvivesLostConnections() async throws {
    try await Self.withDatabase { database, open in
      let a = try await open()
      let seen = NIOLockedValueBox<[Int64]>([])
      let follower = a.store.follow(after: 0) { entry in
        seen.withLockedValue { $0.append(entry.position) }
      } fellBehind: {
        Issue.record("the follower fell behind")
      }
      for round in 0..<5 {
        for i in 0..<40 { try await a.geoadd("k", "m\(round)-\(i)", 1, 1) }
        // Every other connection to the database is cut: the follower's and the writer's.
        try await database.connect { connection in
          try await connection.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """, logger: TestDatabase.logger)
        }
      }
      for i in 0..<40 { try await a.geoadd("k", "after-\(i)", 1, 1) }
      let ids = try await database.connect { connection in
        try await connection.query(
          "SELECT id FROM cardatlas_changes ORDER BY id", logger: TestDatabase.logger
        )
        .collect().map { try $0.decode(Int64.self) }
      }
      #expect(await follower.waitUntilApplied(ids.last!))
      #expect(seen.withLockedValue { $0 } == ids, "every row once, in order")
      await follower.stop()
    }
  }
}
