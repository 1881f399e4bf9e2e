import Accounts
import Cards
import ErrorLines
import Foundation
import Logging
import SQLiteDomainStorage
import Store

/// One row's write: the card `externalId` of `ownerEmail`, as CARD.IMPORT takes it.
public struct CardWriteRequest: Sendable {
  public let ownerEmail: String
  public let externalId: String
  /// The card's JSON; `read.json()` when `read` is given.
  public let json: String
  /// `CardFields.read(object:)` of the row's JSON object, for a sink that `readsFields` (nil
  /// when the row's fields are refused: the domain then reads `json` and names the problem).
  public var read: CardFields? = nil
}

/// Where an import writes: a running daemon (`RESPSink`) or a data directory (`StoreSink`).
/// `send` queues the requests behind those sent before, which are applied first, and returns
/// at once: several chunks are then in flight, so the writer never waits for the importer.
/// Its task answers each request's outcome or the refusal's error line (`LIMIT ...`,
/// `INVALID ...`), in order, once durable; a thrown error means the sink itself failed and
/// nothing after the last checkpoint may be taken as written.
public protocol CardSink: Sendable {
  func send(_ requests: [CardWriteRequest]) -> Task<[Result<ImportOutcome, RowFailure>], any Error>
  func close()
  /// Whether the requests should carry the fields already read (`CardWriteRequest.read`).
  var readsFields: Bool { get }
}

extension CardSink {
  public var readsFields: Bool { false }
}

public struct RowFailure: Error, Sendable {
  public let message: String
}

/// Writes into a data directory the daemon is not running on, each chunk in one transaction
/// through `CardBulkImport`: the domain's rules, applied to what the store holds, without the
/// cards and accounts in memory (a million rows would hold them all). The store is opened with
/// every migration `cardatlas serve` runs on it.
public final class StoreSink: CardSink {
  private let store: Store
  private let cards: CardBulkImport

  public init(directory: String) throws {
    var logger = Logger(label: "cardatlas.import")
    logger.logLevel = .warning
    store = try Store(
      directory: directory,
      migrations: SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
        + SQLiteCardViews.migrations, logger: logger)
    cards = CardBulkImport(storage: SQLiteCardImport(store))
  }

  public func send(_ requests: [CardWriteRequest]) -> Task<
    [Result<ImportOutcome, RowFailure>], any Error
  > {
    let written = cards.write(
      requests.map {
        CardBulkImport.Row(
          ownerEmail: $0.ownerEmail, externalId: $0.externalId, json: $0.json, read: $0.read)
      })
    return Task {
      try await written.value.map { $0.mapError { RowFailure(message: $0.message) } }
    }
  }

  public func close() { store.close() }

  // In-process, the rules take the fields the importer read: no JSON written and read again.
  public var readsFields: Bool { true }
}
