import Foundation
import Logging
import People
import PostgresNIO
import PostgresStore

/// Moving an embedded store's exchanges and pending requests into a database (`cardatlas
/// migrate --to`), and checking they arrived; as `CardsTransfer` does for the cards.
public enum ExchangesTransfer {
  /// What moves: as the embedded store's storage reads it.
  public struct Tables: Sendable {
    public var requests: [StoredExchangeRequest]
    public var exchanges: [Exchange]

    public init(requests: [StoredExchangeRequest], exchanges: [Exchange]) {
      self.requests = requests
      self.exchanges = exchanges
    }
  }

  /// Writes `tables` into `store`'s exchange tables (empty: the cards' check found the
  /// database so), then moves the id sequence past the highest id given.
  public static func fill(
    _ store: PostgresStore, with tables: Tables, chunk: Int = 1_000, logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    for part in tables.requests.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO exchange_requests (from_account, to_account, requested_at)
        SELECT * FROM unnest(\(part.map(\.from)), \(part.map(\.to)), \(part.map(\.requestedAt)))
        """, logger: logger)
    }
    for part in tables.exchanges.chunks(chunk) {
      // Arrays hold no NULL here: NaN and '' stand for none.
      try await connection.query(
        """
        INSERT INTO exchanges (id, account_a, account_b, card_a, card_b, exchanged_at, place, geom)
        SELECT id, a, b, card_a, card_b, at, NULLIF(place, ''),
          CASE WHEN lon = 'NaN' THEN NULL ELSE ST_SetSRID(ST_MakePoint(lon, lat), 4326) END
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.accountA)), \(part.map(\.accountB)),
          \(part.map(\.cardA)), \(part.map(\.cardB)), \(part.map(\.date)),
          \(part.map { $0.place ?? "" }), \(part.map { $0.longitude ?? .nan }),
          \(part.map { $0.latitude ?? .nan }))
          AS moved (id, a, b, card_a, card_b, at, place, lon, lat)
        """, logger: logger)
    }
    let next = (tables.exchanges.map(\.id).max() ?? 0) + 1
    try await connection.run("SELECT setval('exchange_id_blocks', \(next), false)", logger: logger)
  }

  /// What the database's exchange tables hold, summed up as `ExchangesSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> ExchangesSummary
  {
    try await store.snapshot { connection, _ in
      var requests: [StoredExchangeRequest] = []
      for try await (from, to, at) in try await connection.query(
        "SELECT from_account, to_account, requested_at FROM exchange_requests", logger: logger
      ).decode((Int64, Int64, Double).self) {
        requests.append(StoredExchangeRequest(from: from, to: to, requestedAt: at))
      }
      var exchanges: [Exchange] = []
      for try await (id, a, b, cardA, cardB, at, longitude, latitude, place)
        in try await connection.query(
          """
          SELECT id, account_a, account_b, card_a, card_b, exchanged_at, ST_X(geom), ST_Y(geom),
            place
          FROM exchanges
          """, logger: logger
        ).decode((Int64, Int64, Int64, Int64, Int64, Date, Double?, Double?, String?).self)
      {
        exchanges.append(
          Exchange(
            id: id, accountA: a, accountB: b, cardA: cardA, cardB: cardB, date: at,
            longitude: longitude, latitude: latitude, place: place))
      }
      return ExchangesSummary(Tables(requests: requests, exchanges: exchanges))
    }
  }
}

/// Counts and an order-free checksum of the pending requests and the exchanges (every column;
/// times to the millisecond, places to 6 decimals).
public struct ExchangesSummary: Equatable, Sendable, CustomStringConvertible {
  public let requests: Int
  public let exchanges: Int
  public let checksum: UInt64

  public init(_ tables: ExchangesTransfer.Tables) {
    requests = tables.requests.count
    exchanges = tables.exchanges.count
    var sum = TransferChecksumSum()
    func millis(_ seconds: Double) -> Int64 { Int64((seconds * 1_000).rounded()) }
    for request in tables.requests {
      sum.add {
        $0.add("request")
        $0.add(request.from)
        $0.add(request.to)
        $0.add(millis(request.requestedAt))
      }
    }
    for e in tables.exchanges {
      sum.add {
        $0.add("exchange")
        $0.add(e.id)
        $0.add(e.accountA)
        $0.add(e.accountB)
        $0.add(e.cardA)
        $0.add(e.cardB)
        $0.add(millis(e.date.timeIntervalSince1970))
        $0.add(e.longitude.map { String(format: "%.6f", $0) } ?? "-")
        $0.add(e.latitude.map { String(format: "%.6f", $0) } ?? "-")
        $0.add(e.place ?? "-")
      }
    }
    checksum = sum.value
  }

  public var description: String {
    "\(exchanges) exchanges (\(requests) pending requests), checksum "
      + String(checksum, radix: 16)
  }
}
