import Cards
import Durability
import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

extension PostgresCardTables {
  /// Counted views: written in the commit, read from the database on a connection of their own.
  /// No feed: no node holds them in memory.
  struct ViewTables: CardViewStorage {
    let store: PostgresStore

    func recording(
      card: Int64, viewer: Int64, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
    ) -> any DurableWrite {
      ViewWrite(then: then) { connection, logger in
        try await connection.query(
          """
          INSERT INTO card_views (card_id, day, viewer_id) VALUES (\(card), \(day), \(viewer))
          ON CONFLICT DO NOTHING RETURNING 1
          """, logger: logger
        ).collect().count > 0
      }
    }

    func recording(
      card: Int64, visitor: Data, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
    ) -> any DurableWrite {
      ViewWrite(then: then) { connection, logger in
        try await connection.query(
          """
          INSERT INTO card_visits (card_id, day, visitor)
          VALUES (\(card), \(day), \(ByteBuffer(bytes: visitor)))
          ON CONFLICT DO NOTHING RETURNING 1
          """, logger: logger
        ).collect().count > 0
      }
    }

    func views(
      of card: Int64, from: Int, to: Int,
      _ done: @escaping @Sendable (Result<[(day: Int, views: Int)], any Error>) -> Void
    ) {
      let (connector, logger) = (store.connector, Logger(label: "cardatlas.views"))
      Task(executorPreference: connector.executor) {
        do {
          let connection = try await connector.primary()
          defer { connection.discard() }
          var days: [(day: Int, views: Int)] = []
          for try await (day, views) in try await connection.query(
            """
            SELECT day, count(*)::bigint FROM (
              SELECT day FROM card_views WHERE card_id = \(card) AND day BETWEEN \(from) AND \(to)
              UNION ALL
              SELECT day FROM card_visits WHERE card_id = \(card) AND day BETWEEN \(from) AND \(to)
            ) AS opened GROUP BY day ORDER BY day
            """, logger: logger
          ).decode((Int, Int64).self) {
            days.append((day, Int(views)))
          }
          done(.success(days))
        } catch {
          done(.failure(error))
        }
      }
    }

    func deletingViews(of card: Int64) -> any DurableWrite {
      StatementsWrite { connection, logger in
        try await connection.query("DELETE FROM card_views WHERE card_id = \(card)", logger: logger)
        try await connection.query(
          "DELETE FROM card_visits WHERE card_id = \(card)", logger: logger)
      }
    }

    func deletingViews(by viewer: Int64) -> any DurableWrite {
      StatementsWrite { connection, logger in
        try await connection.query(
          "DELETE FROM card_views WHERE viewer_id = \(viewer)", logger: logger)
      }
    }
  }
}

/// One counted view: told as new once durable only if the database had not had it.
private final class ViewWrite: PostgresWrite {
  private let insert: @Sendable (PostgresConnection, Logger) async throws -> Bool
  private let then: @Sendable (Bool) -> Void
  private let inserted = Mutex(false)

  init(
    then: @escaping @Sendable (Bool) -> Void,
    _ insert: @escaping @Sendable (PostgresConnection, Logger) async throws -> Bool
  ) {
    self.insert = insert
    self.then = then
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    let new = try await insert(connection, logger)
    inserted.withLock { $0 = new }
  }

  var feed: [FeedSection] { [] }

  func committed() { then(inserted.withLock { $0 }) }
}
