import Logging
import NIOCore
import PostgresNIO
import PostgresStore

/// Uploaded bytes moving from an embedded store's files into `media_files` (`cardatlas
/// migrate`), and read back to be checked: one kind's, by name.
enum MediaTransfer {
  static func insert(
    _ files: [String: [UInt8]], kind: String, on connection: PostgresConnection, logger: Logger
  ) async throws {
    for (name, bytes) in files {
      try await connection.query(
        """
        INSERT INTO media_files (name, kind, bytes)
        VALUES (\(name), \(kind), \(ByteBuffer(bytes: bytes)))
        """, logger: logger)
    }
  }

  static func read(kind: String, on connection: PostgresConnection, logger: Logger)
    async throws -> [String: [UInt8]]
  {
    var files: [String: [UInt8]] = [:]
    for try await (name, bytes) in try await connection.query(
      "SELECT name, bytes FROM media_files WHERE kind = \(kind)", logger: logger
    ).decode((String, ByteBuffer).self) {
      files[name] = Array(buffer: bytes)
    }
    return files
  }

  /// Adds each file, name and bytes, to `sum`.
  static func add(_ files: [String: [UInt8]], to sum: inout TransferChecksumSum) {
    for (name, bytes) in files {
      sum.add {
        $0.add("file")
        $0.add(name)
        $0.add(bytes)
      }
    }
  }
}
