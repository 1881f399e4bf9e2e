import Cards
import Foundation
import Keyspace
import KeyspaceStore
import Logging
import MediaFiles
import PostgresDomainStorage
import PostgresKeyspaceStore
import PostgresStore
import SQLiteDomainStorage
import Store

/// `cardatlas migrate --from DIR --to postgresql://…`: an embedded store's keyspace, accounts,
/// cards (with their wallets, notice settings and views), exchanges, pins (with their votes and
/// photos), documents, uploads and venues (with their visits, dependants, favourites and
/// exposure notices) into an empty PostgreSQL database, checked by counts and checksums on both
/// sides. The geocode cache is not moved.
public enum StoreTransfer {
  public struct Report: Sendable {
    public let moved: KeyspaceSummary
    public let arrived: KeyspaceSummary
    public let accountsMoved: AccountsSummary
    public let accountsArrived: AccountsSummary
    public let cardsMoved: CardsSummary
    public let cardsArrived: CardsSummary
    public let exchangesMoved: ExchangesSummary
    public let exchangesArrived: ExchangesSummary
    public let pinsMoved: PinsSummary
    public let pinsArrived: PinsSummary
    public let uploadsMoved: UploadsSummary
    public let uploadsArrived: UploadsSummary
    public let venuesMoved: VenuesSummary
    public let venuesArrived: VenuesSummary
    /// The geocode cache's entries, not moved: a cache, filled again as addresses are asked.
    public let cacheLeft: Int
    public let seconds: Double
    /// Each part as moved and as read back, and whether they are the same.
    public var checks: [(moved: String, arrived: String, same: Bool)] {
      func check<Summary: Equatable & CustomStringConvertible>(_ moved: Summary, _ arrived: Summary)
        -> (moved: String, arrived: String, same: Bool)
      {
        ("\(moved)", "\(arrived)", moved == arrived)
      }
      return [
        check(accountsMoved, accountsArrived), check(cardsMoved, cardsArrived),
        check(exchangesMoved, exchangesArrived), check(pinsMoved, pinsArrived),
        check(uploadsMoved, uploadsArrived), check(venuesMoved, venuesArrived),
      ]
    }

    public var verified: Bool { moved == arrived && checks.allSatisfy(\.same) }
  }

  public struct NoStore: Error, CustomStringConvertible {
    let path: String
    public var description: String { "no CardAtlas store at \(path)" }
  }

  public static func move(
    from directory: String, to url: String, logger: Logger
  ) async throws -> Report {
    let file = (directory as NSString).appendingPathComponent(Store.fileName)
    guard FileManager.default.fileExists(atPath: file) else { throw NoStore(path: file) }
    let started = ContinuousClock.now
    let source = try Store(directory: directory, migrations: Domain.migrations, logger: logger)
    defer { source.close() }
    // What a crash left in the journal reaches the tables first.
    try KeyspaceJournal(store: source, fsync: .always, logger: logger).close()
    var changes: [Change] = []
    try source.load { changes.append($0) }
    let cacheLeft = try source.rowCount(of: "geocode_cache") ?? 0
    let accountStorage = SQLiteAccounts(source)
    let accounts = try accountStorage.load()
    let cards = try Self.cards(source)
    let exchangeStorage = SQLiteExchanges(source)
    let exchanges = ExchangesTransfer.Tables(
      requests: try exchangeStorage.load().requests, exchanges: try exchangeStorage.all())
    let pins = try Self.pins(source)
    let uploads = try Self.uploads(source)
    let venues = try SQLiteVenues(source).load()
    let target = try await PostgresStore(
      location: PostgresLocation(url: url), migrations: PostgresNode.migrations, logger: logger)
    do {
      try await KeyspaceTransfer.fill(target, with: changes, logger: logger)
      try await AccountsTransfer.fill(
        target, with: accounts, usernamesKey: try accountStorage.usernamesKey(), logger: logger)
      try await CardsTransfer.fill(target, with: cards, logger: logger)
      try await ExchangesTransfer.fill(target, with: exchanges, logger: logger)
      try await PinsTransfer.fill(target, with: pins, logger: logger)
      try await UploadsTransfer.fill(target, with: uploads, logger: logger)
      try await VenuesTransfer.fill(target, with: venues, logger: logger)
      let arrived = try await KeyspaceTransfer.summary(of: target, logger: logger)
      let accountsArrived = try await AccountsTransfer.summary(of: target, logger: logger)
      let cardsArrived = try await CardsTransfer.summary(of: target, logger: logger)
      let exchangesArrived = try await ExchangesTransfer.summary(of: target, logger: logger)
      let pinsArrived = try await PinsTransfer.summary(of: target, logger: logger)
      let uploadsArrived = try await UploadsTransfer.summary(of: target, logger: logger)
      let venuesArrived = try await VenuesTransfer.summary(of: target, logger: logger)
      await target.close()
      let elapsed = (ContinuousClock.now - started).components
      return Report(
        moved: KeyspaceSummary(changes), arrived: arrived,
        accountsMoved: AccountsSummary(accounts), accountsArrived: accountsArrived,
        cardsMoved: CardsSummary(cards), cardsArrived: cardsArrived,
        exchangesMoved: ExchangesSummary(exchanges), exchangesArrived: exchangesArrived,
        pinsMoved: PinsSummary(pins), pinsArrived: pinsArrived,
        uploadsMoved: UploadsSummary(uploads), uploadsArrived: uploadsArrived,
        venuesMoved: VenuesSummary(venues), venuesArrived: venuesArrived, cacheLeft: cacheLeft,
        seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    } catch {
      await target.close()
      throw error
    }
  }

  /// The embedded store's cards and what goes with them, as its storage reads them.
  static func cards(_ source: Store) throws -> CardsTransfer.Tables {
    let storage = SQLiteCards(source)
    var cards: [(card: Card, externalId: String?)] = []
    let stored = try storage.load { cards += $0 }
    return CardsTransfer.Tables(
      cards: cards, stored: stored, codesKey: try storage.codesKey(),
      wallets: try SQLiteWallets(source).load(), notices: try SQLiteNoticeSettings(source).load(),
      views: try SQLiteCardViews(source).all())
  }

  /// The embedded store's documents and uploads, with the bytes of every file their rows name.
  static func uploads(_ source: Store) throws -> UploadsTransfer.Tables {
    let documents = try SQLiteDocuments(source).loadAll()
    let assets = try SQLiteAssets(source).loadAll()
    let documentFiles = try MediaFiles(directory: source.directory + "/media/documents")
    let assetFiles = try MediaFiles(directory: source.directory + "/media/assets")
    return UploadsTransfer.Tables(
      documents: documents,
      documentFiles: try Dictionary(
        uniqueKeysWithValues: documents.map { ($0.file, try documentFiles.read($0.file)) }),
      assets: assets,
      assetFiles: try Dictionary(
        uniqueKeysWithValues: assets.map { ($0.file, try assetFiles.read($0.file)) }))
  }

  /// The embedded store's pins and votes, and the bytes of every photo a pin names.
  static func pins(_ source: Store) throws -> PinsTransfer.Tables {
    let (pins, votes, nextId) = try SQLitePins(source).load()
    let media = try MediaFiles(directory: source.directory + "/media/pins")
    var photos: [String: [UInt8]] = [:]
    for pin in pins { if let name = pin.photo?.name { photos[name] = try media.read(name) } }
    return PinsTransfer.Tables(pins: pins, votes: votes, photos: photos, nextId: nextId)
  }
}
