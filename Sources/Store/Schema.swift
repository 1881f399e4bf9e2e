import GRDB
// GRDB does not re-export the SQLite C API; we need it for extension loading, the WAL hook and
// allocation-free statement binding.
import GRDBSQLite

/// The database layout, and how every connection is set up.
enum Schema {
  static let fileName = "cardatlas.sqlite"

  /// Loads SpatiaLite into a connection. Every connection needs it: the spatial index triggers
  /// call its functions, and so may whoever reads through us.
  static func loadSpatiaLite(_ db: GRDB.Database) throws {
    let connection = db.sqliteConnection
    sqlite3_enable_load_extension(connection, 1)
    // Loading is re-disabled right away so that no SQL can load a library later.
    defer { sqlite3_enable_load_extension(connection, 0) }
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_load_extension(connection, "mod_spatialite", nil, &message)
    defer { sqlite3_free(message) }
    guard rc == SQLITE_OK else {
      throw StoreError.spatiaLiteUnavailable(message.map { String(cString: $0) } ?? "error \(rc)")
    }
  }

  /// The spatial index's R*Tree, named as SpatiaLite names it so that QGIS and OGR find it.
  static let rtree = "idx_geo_members_geom"

  /// Half the side of a member's box in the spatial index, in degrees (about 550 m of latitude).
  static let indexMargin = 0.005

  /// How far a member may move from its box's centre before the box is rebuilt: a little less
  /// than `indexMargin`, so that rounding (the R*Tree stores 32-bit floats, rounded outwards)
  /// can never leave a point outside its box.
  static let indexSlack = 0.0049

  /// The trigger statements that give member `NEW.fid` a fresh R*Tree entry: a box of
  /// ± `indexMargin` around the given centre (column expressions of the row).
  private static func rewriteEntry(longitude: String, latitude: String) -> String {
    """
      DELETE FROM \(rtree) WHERE pkid = NEW.fid;
      INSERT INTO \(rtree) (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.fid,
        \(longitude) - \(indexMargin), \(longitude) + \(indexMargin),
        \(latitude) - \(indexMargin), \(latitude) + \(indexMargin));
    """
  }

  /// Keep the spatial index in step with geo_members inside the writing statement's transaction.
  ///
  /// Each member's R*Tree entry is a loose box: ± `indexMargin` around the row's
  /// `index_longitude`, `index_latitude`, where the member was when last indexed. A move's
  /// UPDATE keeps that centre while the member stays within `indexSlack` of it (most moves of a
  /// tracked vehicle), and then this trigger does nothing: the move reads and writes only its
  /// own row. A move farther, an insert or a delete rewrites the entry. Every box always
  /// contains its point, so a bounding-box search through the index never misses a member; as
  /// with any R*Tree, its candidates are then checked against the exact geometry.
  ///
  /// These replace SpatiaLite's own eight triggers, which also check the geometry type against
  /// geometry_columns, prepare a statement per row (RTreeAlign) and stamp geometry_columns_time
  /// on every row. DELETE then INSERT (not INSERT OR REPLACE, which an UPSERT's conflict policy
  /// would override) also repairs a missing entry. A NULL centre (rows from schema v1) counts as
  /// out of the box: the member's next move rebuilds its entry.
  static let spatialIndexTriggers = [
    """
    CREATE TRIGGER geo_members_geom_insert AFTER INSERT ON geo_members BEGIN
    \(rewriteEntry(longitude: "NEW.longitude", latitude: "NEW.latitude"))
    END
    """,
    """
    CREATE TRIGGER geo_members_geom_update AFTER UPDATE OF index_longitude, index_latitude
    ON geo_members
    WHEN NEW.index_longitude IS NOT OLD.index_longitude
      OR NEW.index_latitude IS NOT OLD.index_latitude
    BEGIN
    \(rewriteEntry(longitude: "NEW.index_longitude", latitude: "NEW.index_latitude"))
    END
    """,
    """
    CREATE TRIGGER geo_members_geom_delete AFTER DELETE ON geo_members BEGIN
      DELETE FROM \(rtree) WHERE pkid = OLD.fid;
    END
    """,
  ]

  /// Schema v1's triggers, kept as they were so that its migration still builds v1: the box was
  /// checked against the R*Tree entry itself on every move, an R*Tree lookup per move.
  private static let v1Triggers = [
    spatialIndexTriggers[0],
    """
    CREATE TRIGGER geo_members_geom_update AFTER UPDATE OF geom ON geo_members
    WHEN NOT EXISTS (
      SELECT 1 FROM \(rtree) WHERE pkid = NEW.fid
        AND xmin <= NEW.longitude AND xmax >= NEW.longitude
        AND ymin <= NEW.latitude AND ymax >= NEW.latitude)
    BEGIN
    \(rewriteEntry(longitude: "NEW.longitude", latitude: "NEW.latitude"))
    END
    """,
    spatialIndexTriggers[2],
  ]

  static func dropTriggers(on table: String, _ db: GRDB.Database) throws {
    let names = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
      arguments: [table])
    for name in names { try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)") }
  }

  /// Empties geo_members at the cost of a DROP, not of a million trigger runs: the triggers and
  /// the R*Tree are dropped, the table truncated, and both recreated, all in the caller's
  /// transaction.
  static func truncateGeoMembers(_ db: GRDB.Database) throws {
    try dropTriggers(on: "geo_members", db)
    try db.execute(sql: "DROP TABLE \(rtree)")
    try db.execute(sql: "DELETE FROM geo_members")
    try db.execute(sql: "CREATE VIRTUAL TABLE \(rtree) USING rtree(pkid, xmin, xmax, ymin, ymax)")
    for sql in spatialIndexTriggers { try db.execute(sql: sql) }
  }

  /// A SpatiaLite function returns 0 rather than throwing when it fails.
  private static func spatiaLite(_ call: String, _ db: GRDB.Database) throws {
    guard try Int.fetchOne(db, sql: "SELECT \(call)") == 1 else {
      throw StoreError.sqlite(code: SQLITE_ERROR, message: "SpatiaLite \(call) failed")
    }
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      // 0: the migration's transaction is already open (1 would try to BEGIN its own).
      // WGS84_ONLY: 129 reference systems instead of ~5,000, a smaller file and a faster start.
      try spatiaLite("InitSpatialMetadata(0, 'WGS84_ONLY')", db)
      try db.execute(
        sql: """
          CREATE TABLE strings (
            db INTEGER NOT NULL,
            key BLOB NOT NULL,
            value BLOB NOT NULL,
            PRIMARY KEY (db, key)
          ) WITHOUT ROWID;
          -- fid is the GIS feature id and the rowid the spatial index points at: an explicit
          -- INTEGER PRIMARY KEY, because VACUUM may renumber an implicit rowid.
          -- (db, key, member) is the natural primary key, enforced by UNIQUE.
          CREATE TABLE geo_members (
            fid INTEGER PRIMARY KEY,
            db INTEGER NOT NULL,
            key BLOB NOT NULL,
            member BLOB NOT NULL,
            -- A 52-bit geohash (exact in a double), or a distance stored by GEOSEARCHSTORE.
            score REAL NOT NULL,
            longitude REAL NOT NULL,
            latitude REAL NOT NULL,
            UNIQUE (db, key, member)
          );
          """)
      try spatiaLite("AddGeometryColumn('geo_members', 'geom', 4326, 'POINT', 'XY', 1)", db)
      try spatiaLite("CreateSpatialIndex('geo_members', 'geom')", db)
      try dropTriggers(on: "geo_members", db)
      for sql in v1Triggers { try db.execute(sql: sql) }
    }
    // v2: each row keeps the centre of its R*Tree box, so that a move within it needs no R*Tree
    // lookup. v1 rows get NULL, which their next move replaces.
    migrator.registerMigration("v2") { db in
      try db.execute(
        sql: """
          ALTER TABLE geo_members ADD COLUMN index_longitude REAL;
          ALTER TABLE geo_members ADD COLUMN index_latitude REAL;
          """)
      try dropTriggers(on: "geo_members", db)
      for sql in spatialIndexTriggers { try db.execute(sql: sql) }
    }
    return migrator
  }
}
