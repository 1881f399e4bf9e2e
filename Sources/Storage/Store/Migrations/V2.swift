import GRDB

extension StoreMigration {
  /// v2: each member's row keeps the centre of its R*Tree box, so that a move within 0.0049° of
  /// it needs no R*Tree lookup; v1 rows get NULL, which their next move replaces. Shipped:
  /// frozen. `Schema.spatialIndexTriggers` recreates the same triggers after a truncate.
  static let v2 = StoreMigration("v2") { db in
    try db.execute(
      sql: """
        ALTER TABLE geo_members ADD COLUMN index_longitude REAL;
        ALTER TABLE geo_members ADD COLUMN index_latitude REAL;
        """)
    try dropTriggers(on: "geo_members", db)
    try db.execute(
      sql: """
        CREATE TRIGGER geo_members_geom_insert AFTER INSERT ON geo_members BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = NEW.fid;
          INSERT INTO idx_geo_members_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.fid,
            NEW.longitude - 0.005, NEW.longitude + 0.005,
            NEW.latitude - 0.005, NEW.latitude + 0.005);
        END;
        CREATE TRIGGER geo_members_geom_update AFTER UPDATE OF index_longitude, index_latitude
        ON geo_members
        WHEN NEW.index_longitude IS NOT OLD.index_longitude
          OR NEW.index_latitude IS NOT OLD.index_latitude
        BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = NEW.fid;
          INSERT INTO idx_geo_members_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.fid,
            NEW.index_longitude - 0.005, NEW.index_longitude + 0.005,
            NEW.index_latitude - 0.005, NEW.index_latitude + 0.005);
        END;
        CREATE TRIGGER geo_members_geom_delete AFTER DELETE ON geo_members BEGIN
          DELETE FROM idx_geo_members_geom WHERE pkid = OLD.fid;
        END;
        """)
  }
}
