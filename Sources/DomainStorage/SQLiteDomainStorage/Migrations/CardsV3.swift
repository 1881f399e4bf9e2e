import Store

extension SQLiteCards {
  /// cards-v3: the cards' point index (`idx_cards_geom`, which GIS tools read) kept by triggers
  /// of our own, as the store's for geo_members are. SpatiaLite's eight triggers on `cards`
  /// compiled and ran a statement for every row written (`RTreeAlign` through `sqlite3_exec`:
  /// 15% of a bulk import's CPU), checked each point's type against `geometry_columns` and
  /// stamped `geometry_columns_time` on every row; the cards write only points in SRID 4326.
  /// The entries are the points' exact boxes, as SpatiaLite's were. And `cards_by_owner`
  /// goes: the unique `(owner_id, slug)` index serves every look-up by owner, and each card
  /// written paid for both. Shipped: frozen.
  static let cardsV3 = StoreMigration(
    "cards-v3",
    sql: """
      DROP INDEX cards_by_owner;
      DROP TRIGGER IF EXISTS ggi_cards_geom;
      DROP TRIGGER IF EXISTS ggu_cards_geom;
      DROP TRIGGER IF EXISTS tmi_cards_geom;
      DROP TRIGGER IF EXISTS tmu_cards_geom;
      DROP TRIGGER IF EXISTS tmd_cards_geom;
      DROP TRIGGER IF EXISTS gii_cards_geom;
      DROP TRIGGER IF EXISTS giu_cards_geom;
      DROP TRIGGER IF EXISTS gid_cards_geom;
      CREATE TRIGGER cards_geom_insert AFTER INSERT ON cards WHEN NEW.geom IS NOT NULL BEGIN
        INSERT INTO idx_cards_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.id,
          MbrMinX(NEW.geom), MbrMaxX(NEW.geom), MbrMinY(NEW.geom), MbrMaxY(NEW.geom));
      END;
      CREATE TRIGGER cards_geom_update AFTER UPDATE OF geom ON cards BEGIN
        DELETE FROM idx_cards_geom WHERE pkid = NEW.id;
        INSERT INTO idx_cards_geom (pkid, xmin, xmax, ymin, ymax)
          SELECT NEW.id, MbrMinX(NEW.geom), MbrMaxX(NEW.geom), MbrMinY(NEW.geom),
            MbrMaxY(NEW.geom)
          WHERE NEW.geom IS NOT NULL;
      END;
      CREATE TRIGGER cards_geom_delete AFTER DELETE ON cards BEGIN
        DELETE FROM idx_cards_geom WHERE pkid = OLD.id;
      END;
      """)
}
