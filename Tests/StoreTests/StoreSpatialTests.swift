import Foundation
import GRDB
import Keyspace
import Testing

@testable import KeyspaceStore
@testable import Store

@Suite struct StoreSpatialTests {
  /// Every member has one R*Tree entry whose box contains its point, and no entry is left over.
  static func checkIndexInvariant(_ store: Store) throws {
    try store.read { db in
      let members = try Int.fetchOne(db, sql: "SELECT count(*) FROM geo_members")!
      let entries = try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_geo_members_geom")!
      let covering = try Int.fetchOne(
        db,
        sql: """
          SELECT count(*) FROM geo_members g JOIN idx_geo_members_geom i ON i.pkid = g.fid
          WHERE i.xmin <= g.longitude AND i.xmax >= g.longitude
            AND i.ymin <= g.latitude AND i.ymax >= g.latitude
          """)!
      #expect(entries == members)
      #expect(covering == members)
    }
  }

  /// The members inside a box, found through SpatiaLite's SpatialIndex virtual table (then
  /// checked exactly, as with any R*Tree) and by a plain scan: they must agree.
  static func checkBoxQuery(_ store: Store, _ box: (Double, Double, Double, Double)) throws {
    let (x0, y0, x1, y1) = box
    try store.read { db in
      let viaIndex = try Int64.fetchSet(
        db,
        sql: """
          SELECT fid FROM geo_members WHERE fid IN (
            SELECT rowid FROM SpatialIndex
            WHERE f_table_name = 'geo_members' AND f_geometry_column = 'geom'
              AND search_frame = BuildMbr(?1, ?2, ?3, ?4, 4326))
          AND MbrWithin(geom, BuildMbr(?1, ?2, ?3, ?4, 4326))
          """, arguments: [x0, y0, x1, y1])
      let byScan = try Int64.fetchSet(
        db,
        sql: """
          SELECT fid FROM geo_members
          WHERE longitude BETWEEN ?1 AND ?3 AND latitude BETWEEN ?2 AND ?4
          """, arguments: [x0, y0, x1, y1])
      #expect(viaIndex == byScan, "box \(box)")
    }
  }

  @Test func geometryIsThePointAtLongitudeLatitudeInWGS84() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      try await store.commit(changes: [
        move("fleet", "paris", 2.3522, 48.8566), move("fleet", "sydney", 151.2093, -33.8688),
        move("fleet", "edge", -180, -85.05112878),
      ])
      try await store.commit(changes: [move("fleet", "paris", 2.36, 48.86)])
      try store.read { db in
        let rows = try Row.fetchAll(
          db,
          sql: """
            SELECT longitude, latitude, ST_X(geom), ST_Y(geom), ST_SRID(geom), GeometryType(geom)
            FROM geo_members
            """)
        #expect(rows.count == 3)
        for row in rows {
          #expect(row[2] as Double == row[0] as Double)
          #expect(row[3] as Double == row[1] as Double)
          #expect(row[4] as Int == 4326)
          #expect(row[5] as String == "POINT")
        }
        #expect(
          try Double.fetchOne(
            db, sql: "SELECT ST_X(geom) FROM geo_members WHERE member = CAST('paris' AS BLOB)")
            == 2.36)
      }
      try Self.checkIndexInvariant(store)
    }
  }

  @Test func spatialIndexAnswersBoxQueriesAfterMovesAndDeletes() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      var rng = SystemRandomNumberGenerator()
      func point() -> (Double, Double) {
        (Double.random(in: -10..<10, using: &rng), Double.random(in: 40..<50, using: &rng))
      }
      // Two keys, so that deleting one takes the row-by-row path.
      var positions: [(Double, Double)] = []
      var changes: [Change] = []
      for i in 0..<2000 {
        let p = point()
        positions.append(p)
        changes.append(move(i % 2 == 0 ? "even" : "odd", "m\(i)", p.0, p.1))
      }
      try await store.commit(changes: changes)
      // Small moves (inside the index box), long ones (out of it), removals, a deleted key.
      changes = []
      for i in stride(from: 0, to: 2000, by: 3) {
        let (x, y) = positions[i]
        changes.append(move(i % 2 == 0 ? "even" : "odd", "m\(i)", x + 0.001, y - 0.001))
      }
      for i in stride(from: 1, to: 2000, by: 3) {
        let p = point()
        changes.append(move(i % 2 == 0 ? "even" : "odd", "m\(i)", p.0, p.1))
      }
      for i in stride(from: 2, to: 2000, by: 7) {
        changes.append(
          .geoRemove(db: 0, key: bytes(i % 2 == 0 ? "even" : "odd"), member: bytes("m\(i)")))
      }
      try await store.commit(changes: changes)
      try await store.commit(changes: [.deleteKey(db: 0, key: bytes("odd"))])
      let keys = try store.read { db in
        try Int.fetchOne(db, sql: "SELECT count(DISTINCT key) FROM geo_members")
      }
      #expect(keys == 1)
      try Self.checkIndexInvariant(store)
      for _ in 0..<20 {
        let (x, y) = point()
        try Self.checkBoxQuery(
          store, (x, y, x + Double.random(in: 0.01...5), y + Double.random(in: 0.01...3)))
      }
      // A box holding nothing but the slack of the index boxes around one member.
      let (x, y) = try #require(
        try store.read { db in
          try Row.fetchOne(db, sql: "SELECT longitude, latitude FROM geo_members LIMIT 1")
        }.map { ($0[0] as Double, $0[1] as Double) })
      try Self.checkBoxQuery(store, (x + 0.0001, y + 0.0001, x + 0.0002, y + 0.0002))
      try Self.checkBoxQuery(store, (x - 0.0001, y - 0.0001, x + 0.0001, y + 0.0001))
    }
  }

  /// Steps each shorter than the box's slack, all one way: the member leaves the box it was
  /// indexed with, and its entry must follow. Checked after every step.
  @Test func driftingMembersStayInsideTheirBoxes() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      let steps = [(0.002, 0.0), (0.0, -0.003), (0.0017, 0.0017), (-0.0049, 0.0049)]
      var positions = (0..<4).map { i in (Double(i) * 10 + 0.5, 20.5) }
      try await store.commit(
        changes: positions.indices.map { move("k", "m\($0)", positions[$0].0, 20.5) })
      for _ in 0..<12 {
        var changes: [Change] = []
        for (i, step) in steps.enumerated() {
          positions[i].0 += step.0
          positions[i].1 += step.1
          changes.append(move("k", "m\(i)", positions[i].0, positions[i].1))
        }
        try await store.commit(changes: changes)
        try Self.checkIndexInvariant(store)
      }
      for (x, y) in positions {
        try Self.checkBoxQuery(store, (x - 0.00001, y - 0.00001, x + 0.00001, y + 0.00001))
      }
    }
  }

  /// A file written by schema v1 (no box centres in the rows) opens, migrates, loads, and its
  /// members' moves rebuild their entries.
  @Test func aVersion1FileMigratesAndItsMovesKeepTheIndex() async throws {
    try await withTemporaryDirectory { dir in
      let path = (dir as NSString).appendingPathComponent(Schema.fileName)
      do {
        let pool = try DatabasePool(
          path: path, configuration: Connection.configuration(tuning: .default, wal: WalSize()))
        try Schema.migrator().migrate(pool, upTo: "v1")
        try await pool.write { db in
          for i in 0..<100 {
            try db.execute(
              sql: """
                INSERT INTO geo_members (db, key, member, score, longitude, latitude, geom)
                VALUES (0, CAST('k' AS BLOB), CAST(?1 AS BLOB), ?2, ?3, ?4, MakePoint(?3, ?4, 4326))
                """, arguments: ["m\(i)", Double(i), Double(i) - 50, 10.0])
          }
        }
        try pool.close()
      }
      let store = try openStore(dir)
      defer { store.close() }
      let columns = try store.read { db in try db.columns(in: "geo_members").map(\.name) }
      #expect(columns.contains("index_longitude") && columns.contains("index_latitude"))
      let loaded = try store.loadAll()
      #expect(loaded.count == 100)
      try Self.checkIndexInvariant(store)
      // Small moves (inside the old boxes) and long ones.
      try await store.commit(
        changes: (0..<100).map { i in
          i % 2 == 0
            ? move("k", "m\(i)", Double(i) - 50 + 0.001, 10.001)
            : move("k", "m\(i)", Double(i) - 50 + 0.3, 10.3)
        })
      try Self.checkIndexInvariant(store)
      try Self.checkBoxQuery(store, (-60, 9, 60, 11))
      try Self.checkBoxQuery(store, (-50.01, 9.99, -49.99, 10.01))
      let nulls = try store.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM geo_members WHERE index_longitude IS NULL")
      }
      #expect(nulls == 0)
    }
  }

  @Test func flushDatabaseAndFlushAllKeepTheIndexConsistent() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      var model = Model()
      func commit(_ changes: [Change]) async throws {
        try await store.commit(changes: changes)
        for change in changes { model.apply(change) }
        #expect(try store.loadAll() == model.expectedLoad)
        try Self.checkIndexInvariant(store)
      }
      var seed: [Change] = []
      for db in 0..<3 {
        for i in 0..<50 { seed.append(move("k", "m\(i)", Double(i), Double(db), db: db)) }
        seed.append(.setString(db: db, key: bytes("s"), value: bytes("\(db)")))
      }
      try await commit(seed)
      try await commit([.flushDatabase(db: 1)])  // other databases hold members: row by row
      try await commit([.flushDatabase(db: 7)])  // empty: nothing
      try await commit([.flushDatabase(db: 0), .flushDatabase(db: 2)])  // the last one truncates
      try await commit([move("k", "after", 5, 5, db: 2)])  // triggers recreated: indexed
      try await commit([.deleteKey(db: 2, key: bytes("k"))])  // the only GEO key: truncates
      try await commit([
        move("k", "again", 6, 6), .setString(db: 4, key: bytes("s"), value: bytes("x")),
      ])
      try await commit([.flushAll])
      #expect(model.expectedLoad.isEmpty)
      try await commit([move("k", "last", 7, 7)])
      try Self.checkBoxQuery(store, (6.9, 6.9, 7.1, 7.1))
    }
  }
}
