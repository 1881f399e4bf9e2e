import GRDB

extension StoreMigration {
  /// v1: Redis strings and GEO members, members as SpatiaLite points with an R*Tree.
  /// Shipped: frozen.
  ///
  /// Its triggers give a member a box of ± 0.005° in the R*Tree and check the box against the
  /// R*Tree entry on every move (v2 replaced that lookup).
  static let v1 = StoreMigration("v1") { db in
    // 0: the migration's transaction is already open (1 would try to BEGIN its own).
    // WGS84_ONLY: 129 reference systems instead of ~5,000, a smaller file and a faster start.
    try requireSpatiaLite("InitSpatialMetadata(0, 'WGS84_ONLY')", db)
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
    try requireSpatiaLite("AddGeometryColumn('geo_members', 'geom', 4326, 'POINT', 'XY', 1)", db)
    try requireSpatiaLite("CreateSpatialIndex('geo_members', 'geom')", db)
    try dropTriggers(on: "geo_members", db)
    try db.execute(
      sql: """
        CREATE TRIGGER geo_members_geom_insert AFTER INSERT ON geo_members BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = NEW.fid;
          INSERT INTO idx_geo_members_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.fid,
            NEW.longitude - 0.005, NEW.longitude + 0.005,
            NEW.latitude - 0.005, NEW.latitude + 0.005);
        END;
        CREATE TRIGGER geo_members_geom_update AFTER UPDATE OF geom ON geo_members
        WHEN NOT EXISTS (
          SELECT 1 FROM idx_geo_members_geom WHERE pkid = NEW.fid
            AND xmin <= NEW.longitude AND xmax >= NEW.longitude
            AND ymin <= NEW.latitude AND ymax >= NEW.latitude)
        BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = NEW.fid;
          INSERT INTO idx_geo_members_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.fid,
            NEW.longitude - 0.005, NEW.longitude + 0.005,
            NEW.latitude - 0.005, NEW.latitude + 0.005);
        END;
        CREATE TRIGGER geo_members_geom_delete AFTER DELETE ON geo_members BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = OLD.fid;
        END;
        """)
  }
}
