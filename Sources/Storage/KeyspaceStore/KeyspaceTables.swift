import GRDB
import Store

/// The keyspace's tables, `strings` and `geo_members` (the store's first migrations, v1 and v2,
/// made them), and the spatial index kept beside `geo_members`.
enum KeyspaceTables {
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

  /// Empties geo_members at the cost of a DROP, not of a million trigger runs: the triggers and
  /// the R*Tree are dropped, the table truncated, and both recreated, all in the caller's
  /// transaction.
  static func truncateGeoMembers(_ db: GRDB.Database) throws {
    try StoreMigration.dropTriggers(on: "geo_members", db)
    try db.execute(sql: "DROP TABLE \(rtree)")
    try db.execute(sql: "DELETE FROM geo_members")
    try db.execute(sql: "CREATE VIRTUAL TABLE \(rtree) USING rtree(pkid, xmin, xmax, ymin, ymax)")
    for sql in spatialIndexTriggers { try db.execute(sql: sql) }
  }
}
