import Assets
import Durability
import Foundation
import Logging
import MediaFiles
import PostgresNIO
import PostgresStore
import Synchronization

/// The uploads' rows in PostgreSQL (`assets`, as the embedded store names it); their bytes in
/// `media_files` (`PostgresMedia`, kind `assets`). The owner's quota is kept where every node's
/// uploads are (`cardatlas_asset_room`). Each write's `AssetChange` rides in the change feed to
/// every node (`consumer(into:)`).
public final class PostgresAssets: AssetStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "assets-v1",
      [
        """
        CREATE TABLE assets (
          -- 32 random hex digits: the bytes' name in media_files, without its extension.
          id text PRIMARY KEY,
          owner_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          kind text NOT NULL,
          type text NOT NULL,
          bytes integer NOT NULL,
          width integer,
          height integer,
          created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX assets_by_owner ON assets (owner_id)",
        // A new upload's room in its owner's quota, counted where every node's uploads are: the
        // owner's row is locked, so two nodes' uploads count one after the other.
        """
        CREATE FUNCTION cardatlas_asset_room(owner bigint, adding bigint, quota bigint)
        RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM accounts WHERE id = owner FOR UPDATE;
          IF (SELECT coalesce(sum(bytes), 0) FROM assets WHERE owner_id = owner) + adding > quota
          THEN
            RAISE EXCEPTION 'the owner''s uploads would pass % bytes', quota
              USING ERRCODE = '\(overQuotaState)';
          END IF;
        END $$
        """,
      ])
  ]

  /// The feed section's source for upload changes.
  static let source: UInt8 = 9
  /// The SQLSTATE `cardatlas_asset_room` raises.
  static let overQuotaState = "CA003"
  /// The bytes' kind in `media_files`.
  public static let fileKind = "assets"

  let store: PostgresStore
  private let loaded: LoadedOnce<[Asset]>
  private let position: FeedPosition
  private let logger: Logger

  /// Reads every upload in one snapshot.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    let (assets, position) = try await store.snapshot { connection, position in
      (try await Self.read(on: connection, logger: logger), position)
    }
    loaded = LoadedOnce(assets)
    self.position = position
  }

  /// Hands on what was read at start, once.
  public func loadAll() throws -> [Asset] {
    loaded.take() ?? []
  }

  /// Applies every other node's upload changes to `assets`, from where the load read.
  public func consumer(into assets: Assets) -> FeedConsumer {
    .changes(
      AssetChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in assets.apply(followed: change, own: own) }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(
      writes, refusing: Self.overQuotaState, as: { AssetsRaced() }, completion: completion)
  }

  public func inserting(_ asset: Asset, quota: Int) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.run(
        """
        SELECT cardatlas_asset_room(\(asset.ownerId), \(Int64(asset.bytes)), \(Int64(quota)))
        """, logger: logger)
      try await connection.query(
        """
        INSERT INTO assets (id, owner_id, kind, type, bytes, width, height, created_at)
        VALUES (\(asset.id), \(asset.ownerId), \(asset.kind.rawValue), \(asset.type.rawValue),
          \(Int32(clamping: asset.bytes)), \(asset.width.map { Int32(clamping: $0) }),
          \(asset.height.map { Int32(clamping: $0) }), \(asset.createdAt))
        """, logger: logger)
      return AssetChange.added(asset)
    }
  }

  public func deleting(_ ids: [String]) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query("DELETE FROM assets WHERE id = ANY(\(ids))", logger: logger)
      return AssetChange.deleted(ids)
    }
  }

  /// Every upload, as `loadAll` hands them on (and `cardatlas migrate` checks them).
  static func read(on connection: PostgresConnection, logger: Logger) async throws -> [Asset] {
    var assets: [Asset] = []
    for try await (id, owner, kind, type, bytes, width, height, created)
      in try await connection
      .query(
        "SELECT id, owner_id, kind, type, bytes, width, height, created_at FROM assets",
        logger: logger
      ).decode((String, Int64, String, String, Int32, Int32?, Int32?, Date).self)
    {
      guard let kind = AssetKind(rawValue: kind), let type = MediaType(rawValue: type) else {
        continue
      }
      assets.append(
        Asset(
          id: id, ownerId: owner, kind: kind, type: type, bytes: Int(bytes),
          width: width.map(Int.init), height: height.map(Int.init), createdAt: created))
    }
    return assets
  }
}
