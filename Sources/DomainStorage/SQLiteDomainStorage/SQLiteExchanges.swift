import Foundation
import GRDB
import People
import Store

/// The exchanges in the embedded store: `exchanges` and `exchange_requests`.
public struct SQLiteExchanges: ExchangeStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the accounts' and the cards'.
  public static let migrations = [peopleV1, peopleV2]

  public func load() throws -> (
    requests: [StoredExchangeRequest], pairs: [(Int64, Int64)], nextId: Int64
  ) {
    let (requests, pairs, last) = try store.read { db in
      (
        try Row.fetchAll(
          db, sql: "SELECT from_account, to_account, requested_at FROM exchange_requests"),
        try Row.fetchAll(db, sql: "SELECT account_a, account_b FROM exchanges"),
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM exchanges")
      )
    }
    return (
      requests.map {
        StoredExchangeRequest(
          from: $0["from_account"], to: $0["to_account"], requestedAt: $0["requested_at"])
      },
      pairs.map { ($0["account_a"], $0["account_b"]) }, (last ?? 0) + 1
    )
  }

  public func distanceKey() throws -> Data {
    try store.read { try IdKeys.key("distances", $0) }
  }

  public func exchanges(
    of account: Int64, limit: Int,
    _ done: @escaping @Sendable (Result<[Exchange], any Error>) -> Void
  ) {
    done(Result { try read(account, limit) })
  }

  /// Every exchange (`cardatlas migrate`).
  public func all() throws -> [Exchange] {
    try store.read { db in
      try Row.fetchAll(db, sql: "SELECT * FROM exchanges").map(Self.exchange)
    }
  }

  private func read(_ account: Int64, _ limit: Int) throws -> [Exchange] {
    try store.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM exchanges WHERE account_a = ? OR account_b = ?
          ORDER BY exchanged_at DESC, id DESC LIMIT ?
          """, arguments: [account, account, limit]
      ).map(Self.exchange)
    }
  }

  private static func exchange(_ row: Row) -> Exchange {
    Exchange(
      id: row["id"], accountA: row["account_a"], accountB: row["account_b"],
      cardA: row["card_a"], cardB: row["card_b"],
      date: Date(timeIntervalSince1970: row["exchanged_at"]), longitude: row["lon"],
      latitude: row["lat"], place: row["place"])
  }

  public func inserting(_ e: Exchange) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO exchanges
            (id, account_a, account_b, card_a, card_b, exchanged_at, lon, lat, place)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          e.id, e.accountA, e.accountB, e.cardA, e.cardB, e.date.timeIntervalSince1970,
          e.longitude, e.latitude, e.place,
        ])
    }
  }

  /// One node: memory already knows of every exchange, so `new` needs no check.
  public func syncingRequest(
    from: Int64, to: Int64, new: Bool, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite {
    TransactionWrite { db in
      if let at = current() {
        try db.execute(
          sql: """
            INSERT INTO exchange_requests (from_account, to_account, requested_at) VALUES (?, ?, ?)
            ON CONFLICT (from_account, to_account) DO UPDATE SET requested_at = excluded.requested_at
            """, arguments: [from, to, at])
      } else {
        try db.execute(
          sql: "DELETE FROM exchange_requests WHERE from_account = ? AND to_account = ?",
          arguments: [from, to])
      }
    }
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "DELETE FROM exchange_requests WHERE from_account = ? OR to_account = ?",
        arguments: [account, account])
      try db.execute(
        sql: "DELETE FROM exchanges WHERE account_a = ? OR account_b = ?",
        arguments: [account, account])
    }
  }
}
