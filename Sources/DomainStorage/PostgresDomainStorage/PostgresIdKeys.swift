import Crypto
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// The keys ids are turned into texts under (usernames, share codes), in `id_keys`.
enum PostgresIdKeys {
  /// Makes the key for `purpose` unless there is one: the first node to start makes it, and
  /// every node reads the one that was kept.
  static func ensure(_ purpose: String, in store: PostgresStore, logger: Logger) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    try await connection.query(
      """
      INSERT INTO id_keys (purpose, key) VALUES (\(purpose), \(ByteBuffer(bytes: key)))
      ON CONFLICT (purpose) DO NOTHING
      """, logger: logger)
  }
}
