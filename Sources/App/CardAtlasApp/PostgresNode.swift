import Accounts
import Assets
import Cards
import Commands
import DomainSupport
import Foundation
import Keyspace
import Logging
import NIOCore
import People
import Pins
import PostgresDomainStorage
import PostgresKeyspaceStore
import PostgresStore
import Server
import Synchronization
import Venues
import WebPages

/// `serve --store postgresql://…`: a node over a database other nodes share. It serves the GEO
/// keyspace (Redis's commands) and every domain service (`Domain`, the same rules and commands
/// as the embedded daemon's), loaded from the database and following every node's writes
/// (docs/STORE.md, "Many nodes").
public enum PostgresNode {
  /// Every table a node keeps in PostgreSQL, in the order they shipped: frozen.
  static let migrations =
    KeyspaceTables.migrations + PostgresAccounts.migrations + PostgresCards.migrations
    + PostgresCardTables.migrations + PostgresGeocodeCache.migrations
    + PostgresExchanges.migrations + PostgresMedia.migrations + PostgresPins.migrations
    + PostgresDocuments.migrations + PostgresAssets.migrations + PostgresVenues.migrations

  /// Connects (migrating the tables), loads the keyspace and the domain and builds the RESP
  /// server on them; `start()` binds it. Mail the accounts cannot send goes to `outbox` (a
  /// directory).
  public static func open(
    server configuration: ServerConfiguration, url: String,
    retention: FeedRetention = FeedRetention(), domain settings: Domain.Configuration,
    outbox: String, readiness: NodeReadiness? = nil, logger: Logger
  ) async throws -> (server: CardAtlasServer, domain: Domain) {
    let location = try PostgresLocation(url: url)
    // Off the global pool: what blocks a thread there (a synchronous library, a test's socket
    // calls) never holds up a commit or the feed.
    let store = try await PostgresStore(
      location: location, migrations: migrations, retention: retention,
      executor: DispatchTaskExecutor.shared, logger: logger)
    let keyspace = Keyspace()
    let hub = PubSubHub()
    let storage: PostgresKeyspace
    let domain: Domain
    do {
      // What it holds is stale from then on: exit, for the supervisor to start it afresh.
      let stale: @Sendable () -> Void = { exit(EX_TEMPFAIL) }
      // The keyspace loads while the domain does: the start's work on every core.
      async let keyspaceLoaded = PostgresKeyspace.load(keyspace, from: store, logger: logger)
      // Each module reads its own snapshot, those that refer to others' rows first: a wallet's
      // card, and a card's owner, are then in the later snapshots, and what changed between
      // two snapshots comes by the feed from each module's own position.
      let exchanges = try await PostgresExchanges(store: store, logger: logger)
      let pins = try await PostgresPins(store: store, logger: logger)
      let documents = try await PostgresDocuments(store: store, logger: logger)
      let venues = try await PostgresVenues(store: store, logger: logger)
      let cardTables = try await PostgresCardTables(store: store, logger: logger)
      let cards = try await PostgresCards(store: store, logger: logger)
      // After the cards: an upload a card names committed before the card, so it is here.
      let assets = try await PostgresAssets(store: store, logger: logger)
      let accounts = try await PostgresAccounts(store: store, logger: logger)
      func media(_ kind: String) -> PostgresMedia {
        PostgresMedia(store: store, kind: kind, logger: logger)
      }
      domain = try Domain(
        storage: Domain.Storage(
          accounts: accounts, outbox: outbox, cards: cards, notices: cardTables.notices,
          views: cardTables.views, wallets: cardTables.wallets, pins: pins,
          pinPhotos: media(PostgresPins.photoKind), exchanges: exchanges,
          documents: documents, documentFiles: media(PostgresDocuments.fileKind),
          venues: venues, assets: assets, assetFiles: media(PostgresAssets.fileKind),
          // Its answers kept in the database: one node's look-up spares the others'.
          geocodeCache: PostgresGeocodeCache(store: store, logger: logger)),
        notifier: PubSubNotifier(hub: hub), configuration: settings)
      storage = PostgresKeyspace(
        store: store, keyspace: keyspace, loadedAt: try await keyspaceLoaded,
        alongside: [
          accounts.consumer(into: domain.accounts), cards.consumer(into: domain.cards),
          cardTables.consumer(wallets: domain.wallets, notices: domain.notices, logger: logger),
          exchanges.consumer(into: domain.people), pins.consumer(into: domain.pins),
          documents.consumer(into: domain.documents), assets.consumer(into: domain.assets),
          venues.consumer(into: domain.venues),
        ],
        logger: logger, fellBehind: stale)
    } catch {
      await store.close()
      throw error
    }
    readiness?.loaded(storage)
    logger.info(
      "loaded the keyspace from PostgreSQL",
      metadata: [
        "database": "\(location)", "node": "\(store.node)",
        "keys": "\(keyspace.read { $0[0].count })", "accounts": "\(domain.accounts.count)",
        "cards": "\(domain.cards.count)",
      ])
    relay(store, hub, domain)
    do {
      let server = try CardAtlasServer(
        configuration: configuration, keyspace: keyspace, storage: storage, hub: hub,
        parts: [domain.commands], logger: logger)
      return (server, domain)
    } catch {
      await storage.close()
      throw error
    }
  }

  /// Carries pub/sub between the nodes: clients' messages, and each service's news (what its
  /// limits counted, people's presences), applied here as the other nodes send it.
  static func relay(_ store: PostgresStore, _ hub: PubSubHub, _ domain: Domain) {
    func applying<News: Decodable>(_ apply: @escaping @Sendable (News) -> Void)
      -> @Sendable ([UInt8]) -> Void
    {
      { message in
        if let news = try? JSONDecoder().decode(News.self, from: Data(message)) { apply(news) }
      }
    }
    let appliers: [PostgresPubSub.Topic: @Sendable ([UInt8]) -> Void] = [
      .accounts: applying { (news: AccountsNews) in domain.accounts.apply(followed: news) },
      .cards: applying { (news: CardsNews) in domain.cards.apply(followed: news) },
      .people: applying { (news: PeopleNews) in domain.people.apply(followed: news) },
      .pins: applying { (news: PinsNews) in domain.pins.apply(followed: news) },
      .assets: applying { (news: AssetsNews) in domain.assets.apply(followed: news) },
      .venues: applying { (news: VenuesNews) in domain.venues.apply(followed: news) },
    ]
    // Listening anew, a node asks the others for the presences set through them, which it
    // could not have heard (it started later, or its connection was lost).
    let hello = (try? JSONEncoder().encode(PeopleNews.hello)).map { Array($0) } ?? []
    let relay = store.pubsub(
      listening: { $0.publish(.people, channel: [], message: hello) },
      deliver: { topic, channel, message in
        if topic == .clients {
          hub.deliver(ByteBuffer(bytes: message), to: channel)
        } else {
          appliers[topic]?(message)
        }
      })
    func sending<News: Encodable>(_ topic: PostgresPubSub.Topic) -> @Sendable (News) -> Void {
      { news in
        guard let message = try? JSONEncoder().encode(news) else { return }
        relay.publish(topic, channel: [], message: Array(message))
      }
    }
    // Guesses, sign-ups, look-ups by code, searches, opens, uploads and venues spread over
    // nodes meet the same limits as on one; a presence set here is found there.
    domain.accounts.shareNews(sending(.accounts))
    domain.cards.shareNews(sending(.cards))
    domain.people.shareNews(sending(.people))
    domain.pins.shareNews(sending(.pins))
    domain.assets.shareNews(sending(.assets))
    domain.venues.shareNews(sending(.venues))
    hub.relay(
      to: PubSubHub.Relay(maximumBytes: PostgresPubSub.maximumBytes) { channel, payload in
        relay.publish(channel: channel, message: Array(buffer: payload))
      })
  }
}

/// What a node's `GET /readyz` says: not ready while it loads, then ready while its follower is
/// connected and has read to the change feed's end within `maximumLag` (it keeps up).
public final class NodeReadiness: Sendable {
  private let storage = Mutex<PostgresKeyspace?>(nil)
  private let serving = Atomic<Bool>(false)
  let maximumLag: Duration

  public init(maximumLag: Duration) { self.maximumLag = maximumLag }

  func loaded(_ storage: PostgresKeyspace) { self.storage.withLock { $0 = storage } }

  /// The RESP port is bound.
  public func serve() { serving.store(true, ordering: .relaxed) }

  public func current() -> Readiness {
    guard serving.load(ordering: .relaxed), let feed = storage.withLock({ $0 })?.feed else {
      return .notReady("loading")
    }
    guard feed.connected else { return .notReady("the change feed's connection is down") }
    guard feed.sinceCaughtUp <= maximumLag else {
      return .notReady("behind the change feed for \(feed.sinceCaughtUp)")
    }
    return .ready
  }
}
