import Accounts
import Cards
import Dispatch
import Durability
import Foundation
import MediaFiles
import RateLimits
import Synchronization

/// Uploaded profile images, logos and CVs, and their rules: which files each kind takes, how
/// large, which cards may name them (their owner's), and when they go (with the last card
/// naming them, with their account, or a day after an upload no card names). Rows in the store,
/// bytes in a `MediaStore`; knows nothing of RESP or HTTP.
public final class Assets: Sendable {
  public struct Configuration: Sendable {
    /// The largest upload, in bytes (`--max-upload-bytes`).
    public var maxBytes = 5 * 1024 * 1024
    /// The most pixels an image may have: more would take too much memory to decode (a
    /// small file can claim a huge image).
    public var maxPixels = 40_000_000
    /// How long an upload no card names is kept (time for the client to set it on a card).
    public var unclaimedLifetime: TimeInterval = 24 * 60 * 60
    /// The base of the assets' URLs: `<publicURL>/a/<id>`, as cards' share URLs.
    public var publicURL = "http://127.0.0.1:8080"
    /// The bytes one account's uploads may take in all (`--upload-quota`).
    public var quotaBytes = 50 * 1024 * 1024
    /// Uploads one account may make in an hour (`--uploads-per-hour`, 0: no limit).
    public var uploadsPerHour = 30

    public init() {}
  }

  struct State {
    var assets: [String: Asset] = [:]
    var byOwner: [Int64: Set<String>] = [:]
    /// The cards naming each asset, and the assets each card names.
    var namedBy: [String: Set<Int64>] = [:]
    var names: [Int64: Set<String>] = [:]
    /// Bytes of uploads on their way to the store, by owner: counted against the quota.
    var incoming: [Int64: Int] = [:]
  }

  let storage: any AssetStorage
  let accounts: Accounts
  let media: any MediaStore
  public let configuration: Configuration
  /// Which URLs point into the assets (`claim` allows only their exact form).
  let assetPaths: AssetPaths
  let uploads: KeyedLimit
  let state = Mutex(State())
  let newsShare = Mutex<(@Sendable (AssetsNews) -> Void)?>(nil)
  public typealias Done<T> = @Sendable (Result<T, AssetError>) -> Void

  /// Loads the rows, learns which cards name them, removes the files no row names, and sweeps
  /// what its account no longer holds or no card claimed in time.
  public init(
    storage: any AssetStorage, accounts: Accounts, cards: Cards, media: any MediaStore,
    configuration: Configuration = .init()
  ) throws {
    self.storage = storage
    self.accounts = accounts
    self.media = media
    self.configuration = configuration
    assetPaths = AssetPaths(publicURL: configuration.publicURL)
    uploads = KeyedLimit(configuration.uploadsPerHour, per: 3_600)
    let loaded = try storage.loadAll()
    var owners: Set<Int64> = []
    state.withLock { s in
      for asset in loaded {
        s.assets[asset.id] = asset
        s.byOwner[asset.ownerId, default: []].insert(asset.id)
        owners.insert(asset.ownerId)
      }
    }
    for owner in owners {
      for card in cards.cards(of: owner) {
        _ = claim(card: card.id, owner: owner, fields: card.fields)
      }
    }
    media.removeUnnamed(keeping: state.withLock { Set($0.assets.values.map(\.file)) })
    let swept = state.withLock { s in
      s.assets.values.filter { accounts.account($0.ownerId) == nil || unclaimed($0, s) }
        .map { Self.forget($0.id, &s)! }
    }
    if !swept.isEmpty { storage.commit(deletion(swept)) { _ in } }
    accounts.addObserver(AccountsObserver(assets: self))
    cards.addObserver(CardsObserver(assets: self))
    cards.addGuard(CardsGuard(assets: self))
  }

  // MARK: Reading

  public func asset(_ id: String) -> Asset? { state.withLock { $0.assets[id] } }

  public func assets(of owner: Int64) -> [Asset] {
    state.withLock { s in (s.byOwner[owner] ?? []).compactMap { s.assets[$0] } }
      .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
  }

  /// Where the asset is served.
  public func url(_ id: String) -> String { configuration.publicURL + "/a/" + id }

  /// The asset and its bytes, read off the caller's thread (an event loop).
  public func open(_ id: String, _ done: @escaping Done<(asset: Asset, bytes: [UInt8])>) {
    guard let asset = asset(id) else { return done(.failure(.notFound)) }
    DispatchQueue.global().async { [media] in
      // Deleted meanwhile: gone.
      guard let bytes = try? media.read(asset.file) else { return done(.failure(.notFound)) }
      done(.success((asset, bytes)))
    }
  }

  // MARK: Writing

  /// Stores an upload of `owner`: a file of a type `kind` takes, by its magic bytes, a header
  /// that reads and a whole container (`WholeFile`), of at most `maxBytes` bytes and (an image) `maxPixels` pixels. Its
  /// file is written and synced before its row commits; answered once the row is durable. The
  /// owner's uploads no card claimed within `unclaimedLifetime` go in the same transaction.
  public func put(owner: Int64, kind: AssetKind, bytes: [UInt8], _ done: @escaping Done<Asset>) {
    guard accounts.account(owner) != nil else { return done(.failure(.noAccount)) }
    guard !bytes.isEmpty, bytes.count <= configuration.maxBytes else {
      return done(.failure(.size(maximum: configuration.maxBytes)))
    }
    guard let info = MediaInspector.inspect(bytes), kind.accepts.contains(info.type),
      WholeFile.check(bytes, info.type)
    else { return done(.failure(.type(kind))) }
    if let width = info.width, let height = info.height,
      width.multipliedReportingOverflow(by: height).overflow
        || width * height > configuration.maxPixels
    {
      return done(
        .failure(.pixels(width: width, height: height, maximum: configuration.maxPixels)))
    }
    if let wait = uploads.take(["account:\(owner)"]) {
      return done(
        .failure(
          .limited(LimitExceeded("at most \(uploads.limit) uploads an hour", retryAfter: wait))))
    }
    share(.uploaded(account: owner))
    if let used = reserve(bytes.count, for: owner) {
      return done(.failure(.quota(used: used, quota: configuration.quotaBytes)))
    }
    // Written and synced off the caller's thread, one upload at a time.
    Self.writer.async { [self] in
      let name: String
      do { name = try media.write(bytes, type: info.type) } catch {
        release(bytes.count, for: owner)
        return done(.failure(.notPersisted("\(error)")))
      }
      let asset = Asset(
        id: String(name.prefix { $0 != "." }), ownerId: owner, kind: kind, type: info.type,
        bytes: bytes.count, width: info.width, height: info.height,
        createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
      let swept = state.withLock { s in
        (s.byOwner[owner] ?? []).compactMap { s.assets[$0] }.filter { unclaimed($0, s) }
          .map { Self.forget($0.id, &s)! }
      }
      let quota = configuration.quotaBytes
      storage.commit(
        [storage.inserting(asset, quota: quota)] + (swept.isEmpty ? [] : deletion(swept))
      ) { [self] result in
        switch result {
        case .failure(let error):
          media.remove(name)
          release(bytes.count, for: owner)
          switch error {
          case is AssetsRaced: done(.failure(.quota(used: quota, quota: quota)))
          case let failure as StoreFailure where failure.nothingWritten:
            done(.failure(.tryAgain("write not persisted, nothing written: \(error)")))
          default: done(.failure(.notPersisted("\(error)")))
          }
        case .success:
          // Known (and claimable) only once durable.
          state.withLock { s in
            s.assets[asset.id] = asset
            s.byOwner[owner, default: []].insert(asset.id)
            Self.release(bytes.count, for: owner, &s)
          }
          done(.success(asset))
        }
      }
    }
  }

  // MARK: Helpers

  /// Counts an upload's bytes against its owner's quota, or answers the bytes already used when
  /// they would pass it.
  private func reserve(_ bytes: Int, for owner: Int64) -> Int? {
    state.withLock { s in
      let used =
        (s.byOwner[owner] ?? []).reduce(0) { $0 + (s.assets[$1]?.bytes ?? 0) }
        + s.incoming[owner, default: 0]
      guard used + bytes <= configuration.quotaBytes else { return used }
      s.incoming[owner, default: 0] += bytes
      return nil
    }
  }

  private func release(_ bytes: Int, for owner: Int64) {
    state.withLock { Self.release(bytes, for: owner, &$0) }
  }

  private static func release(_ bytes: Int, for owner: Int64, _ s: inout State) {
    let left = s.incoming[owner, default: 0] - bytes
    s.incoming[owner] = left > 0 ? left : nil
  }

  private static let writer = DispatchQueue(label: "cardatlas.assets.uploads")

  /// No card names it, and it is older than the time given to claim it.
  func unclaimed(_ asset: Asset, _ s: State) -> Bool {
    s.namedBy[asset.id] == nil
      && Date().timeIntervalSince(asset.createdAt) >= configuration.unclaimedLifetime
  }

  /// The asset leaves memory (its claims with it); returns it.
  static func forget(_ id: String, _ s: inout State) -> Asset? {
    guard let asset = s.assets.removeValue(forKey: id) else { return nil }
    s.byOwner[asset.ownerId]?.remove(id)
    if s.byOwner[asset.ownerId]?.isEmpty == true { s.byOwner[asset.ownerId] = nil }
    for card in s.namedBy.removeValue(forKey: id) ?? [] {
      s.names[card]?.remove(id)
      if s.names[card]?.isEmpty == true { s.names[card] = nil }
    }
    return asset
  }

  /// Deletes the assets' rows; their files go once that is durable.
  func deletion(_ gone: [Asset]) -> [any DurableWrite] {
    [
      storage.deleting(gone.map(\.id)),
      AfterCommit { [media] in for asset in gone { media.remove(asset.file) } },
    ]
  }
}
