import Accounts
import Cards
import Foundation
import Logging
import Notifications
import Store
import Synchronization

/// One row's write: the card `externalId` of `ownerEmail`, as CARD.IMPORT takes it.
public struct CardWriteRequest: Sendable {
  public let ownerEmail: String
  public let externalId: String
  public let json: String
  /// `CardFields.read(object:)` of what `json` holds, for a sink that `readsFields` (nil when
  /// the row's fields are refused: the domain then reads `json` and names the problem).
  public var read: CardFields? = nil
}

/// Where an import writes: a running daemon (`RESPSink`) or a data directory (`StoreSink`).
/// Each request gets its outcome or the refusal's error line (`LIMIT ...`, `INVALID ...`), in
/// order, once durable; a thrown error means the sink itself failed and nothing after the last
/// checkpoint may be taken as written.
public protocol CardSink: Sendable {
  func write(_ requests: [CardWriteRequest]) async throws -> [Result<ImportOutcome, RowFailure>]
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

/// Writes through the domain into a data directory the daemon is not running on: the store
/// opened with the accounts' and cards' migrations, as `cardatlas serve` opens it.
public final class StoreSink: CardSink {
  private let store: Store
  private let cards: Cards

  public init(directory: String) throws {
    var logger = Logger(label: "cardatlas.import")
    logger.logLevel = .warning
    store = try Store(
      directory: directory,
      migrations: Accounts.migrations + Cards.migrations + Wallets.migrations
        + CardViews.migrations, logger: logger)
    let accounts = try Accounts(store: store)
    cards = try Cards(store: store, accounts: accounts)
    // Wallets hold copies of cards' text for search: they hear of updated cards.
    let notices = try Notices(store: store, cards: cards, notifier: SilentNotifier())
    _ = try Wallets(store: store, cards: cards, notices: notices)
  }

  public func write(_ requests: [CardWriteRequest]) async throws -> [Result<
    ImportOutcome, RowFailure
  >] {
    let results = Mutex([Result<ImportOutcome, RowFailure>?](repeating: nil, count: requests.count))
    let remaining = Atomic(requests.count)
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      guard !requests.isEmpty else { return finished.resume() }
      for (i, request) in requests.enumerated() {
        cards.importCard(
          ownerEmail: request.ownerEmail, externalId: request.externalId, json: request.json,
          read: request.read
        ) { result in
          let mapped = result.map(\.outcome).mapError { RowFailure(message: $0.message) }
          results.withLock { $0[i] = mapped }
          if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            finished.resume()
          }
        }
      }
    }
    return results.withLock { $0.map { $0! } }
  }

  public func close() { store.close() }

  // In-process, the domain takes the fields the importer read: no JSON written and read again.
  public var readsFields: Bool { true }
}
