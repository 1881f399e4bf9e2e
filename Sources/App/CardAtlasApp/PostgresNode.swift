import AccountCommands
import Accounts
import AssetCommands
import Assets
import CardCommands
import Cards
import Commands
import DocumentCommands
import Documents
import Foundation
import GeocodeCommands
import GeocoderClients
import Geocoding
import Keyspace
import Logging
import NIOCore
import People
import PeopleCommands
import PinCommands
import Pins
import PostgresDomainStorage
import PostgresKeyspaceStore
import PostgresStore
import Server
import Synchronization
import VenueCommands
import Venues
import WebPages

/// `serve --store postgresql://…`: a node over a database other nodes share. It serves the GEO
/// keyspace (Redis's commands), the accounts (AUTH, ACCOUNT.*, SESSION.*), the cards with
/// their wallets, notices and views (CARD.*, WALLET.*, NOTIFY.*) and people nearby with their
/// exchanges (PRESENCE.*, PEOPLE.NEARBY, EXCHANGE.*), the photo pins (PIN.*), the private
/// documents (DOC.*), the uploads (ASSET.*) and the venues with their check-ins and exposure
/// (VENUE.*, CHECKIN, …), loaded from the database and following every node's writes; its
/// HTTP port serves only the probes (docs/STORE.md).
public enum PostgresNode {
  /// Every table a node keeps in PostgreSQL, in the order they shipped: frozen.
  static let migrations =
    KeyspaceTables.migrations + PostgresAccounts.migrations + PostgresCards.migrations
    + PostgresCardTables.migrations + PostgresGeocodeCache.migrations
    + PostgresExchanges.migrations + PostgresMedia.migrations + PostgresPins.migrations
    + PostgresDocuments.migrations + PostgresAssets.migrations + PostgresVenues.migrations

  /// Connects (migrating the tables), loads the keyspace and the accounts and builds the
  /// server; `start()` binds it. Mail the accounts cannot send goes to `outbox` (a directory).
  public static func open(
    server configuration: ServerConfiguration, url: String,
    retention: FeedRetention = FeedRetention(), accounts settings: Accounts.Configuration,
    cards cardSettings: Cards.Configuration, people peopleSettings: People.Configuration = .init(),
    pins pinSettings: Pins.Configuration = .init(),
    documents documentSettings: Documents.Configuration = .init(),
    assets assetSettings: Assets.Configuration = .init(),
    venues venueSettings: Venues.Configuration = .init(),
    geocoder makeGeocoder: (@Sendable (GeocodeCache) throws -> any Geocoder)? = nil,
    outbox: String, readiness: NodeReadiness? = nil,
    logger: Logger
  ) async throws -> CardAtlasServer {
    let location = try PostgresLocation(url: url)
    let store = try await PostgresStore(
      location: location, migrations: migrations, retention: retention, logger: logger)
    let keyspace = Keyspace()
    let hub = PubSubHub()
    let storage: PostgresKeyspace
    let accounts: Accounts
    let cards: Cards
    let views: CardViews
    let wallets: Wallets
    let notices: Notices
    let people: People
    let pins: Pins
    let documents: Documents
    let assets: Assets
    let venues: Venues
    let geocoder: (any Geocoder)?
    do {
      // Its answers kept in the database: one node's look-up spares the others'.
      geocoder = try makeGeocoder?(
        GeocodeCache(PostgresGeocodeCache(store: store, logger: logger)))
      var cardSettings = cardSettings
      if cardSettings.geocoder == nil { cardSettings.geocoder = geocoder }
      // What it holds is stale from then on: exit, for the supervisor to start it afresh.
      let stale: @Sendable () -> Void = { exit(EX_TEMPFAIL) }
      // Each module reads its own snapshot, those that refer to others' rows first: a wallet's
      // card, and a card's owner, are then in the later snapshots, and what changed between
      // two snapshots comes by the feed from each module's own position.
      let exchanges = try await PostgresExchanges(store: store, logger: logger)
      let pinStorage = try await PostgresPins(store: store, logger: logger)
      let documentStorage = try await PostgresDocuments(store: store, logger: logger)
      let venueStorage = try await PostgresVenues(store: store, logger: logger)
      let cardTables = try await PostgresCardTables(store: store, logger: logger)
      let cardStorage = try await PostgresCards(store: store, logger: logger)
      // After the cards: an upload a card names committed before the card, so it is here.
      let assetStorage = try await PostgresAssets(store: store, logger: logger)
      let accountStorage = try await PostgresAccounts(store: store, logger: logger)
      accounts = try Accounts(storage: accountStorage, outbox: outbox, configuration: settings)
      cards = try Cards(storage: cardStorage, accounts: accounts, configuration: cardSettings)
      notices = try Notices(
        storage: cardTables.notices, cards: cards, notifier: PubSubNotifier(hub: hub))
      views = CardViews(storage: cardTables.views, cards: cards, notices: notices)
      wallets = try Wallets(storage: cardTables.wallets, cards: cards, notices: notices)
      people = try People(
        storage: exchanges, accounts: accounts, cards: cards, wallets: wallets,
        notifier: PubSubNotifier(hub: hub), configuration: peopleSettings)
      pins = try Pins(
        storage: pinStorage, accounts: accounts,
        media: PostgresMedia(store: store, kind: PostgresPins.photoKind, logger: logger),
        configuration: pinSettings)
      documents = try Documents(
        storage: documentStorage,
        files: PostgresMedia(store: store, kind: PostgresDocuments.fileKind, logger: logger),
        accounts: accounts, configuration: documentSettings)
      var venueSettings = venueSettings
      if venueSettings.geocoder == nil { venueSettings.geocoder = geocoder }
      if venueSettings.positiveTest == nil {
        // EXPOSURE.REPORT asks for the reporter's latest positive test on file.
        venueSettings.positiveTest = { [documents] in documents.positiveTest(of: $0) }
      }
      venues = try Venues(
        storage: venueStorage, accounts: accounts, notifier: PubSubNotifier(hub: hub),
        configuration: venueSettings)
      var assetSettings = assetSettings
      assetSettings.publicURL = cards.configuration.publicURL
      assets = try Assets(
        storage: assetStorage, accounts: accounts, cards: cards,
        media: PostgresMedia(store: store, kind: PostgresAssets.fileKind, logger: logger),
        configuration: assetSettings)
      storage = try await PostgresKeyspace(
        store: store, keyspace: keyspace,
        alongside: [
          accountStorage.consumer(into: accounts), cardStorage.consumer(into: cards),
          cardTables.consumer(wallets: wallets, notices: notices, logger: logger),
          exchanges.consumer(into: people), pinStorage.consumer(into: pins),
          documentStorage.consumer(into: documents), assetStorage.consumer(into: assets),
          venueStorage.consumer(into: venues),
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
        "keys": "\(keyspace.read { $0[0].count })", "accounts": "\(accounts.count)",
        "cards": "\(cards.count)",
      ])
    // What is published here reaches the other nodes' subscribers, and theirs come here.
    let relay = store.pubsub { topic, channel, message in
      switch topic {
      case .clients: hub.deliver(ByteBuffer(bytes: message), to: channel)
      case .accounts:
        guard let news = try? JSONDecoder().decode(AccountsNews.self, from: Data(message))
        else { return }
        accounts.apply(followed: news)
      case .people:
        guard let news = try? JSONDecoder().decode(PeopleNews.self, from: Data(message))
        else { return }
        people.apply(followed: news)
      case .pins:
        guard let news = try? JSONDecoder().decode(PinsNews.self, from: Data(message))
        else { return }
        pins.apply(followed: news)
      case .assets:
        guard let news = try? JSONDecoder().decode(AssetsNews.self, from: Data(message))
        else { return }
        assets.apply(followed: news)
      case .venues:
        guard let news = try? JSONDecoder().decode(VenuesNews.self, from: Data(message))
        else { return }
        venues.apply(followed: news)
      }
    }
    // Guesses, sign-ups and reset requests spread over nodes count on every node.
    accounts.shareNews { news in
      guard let message = try? JSONEncoder().encode(news) else { return }
      relay.publish(.accounts, channel: [], message: Array(message))
    }
    // Presences set here are found there, and searches spread over nodes meet one limit.
    people.shareNews { news in
      guard let message = try? JSONEncoder().encode(news) else { return }
      relay.publish(.people, channel: [], message: Array(message))
    }
    // Adds and opens spread over nodes meet one limit, and one opener's travel is one.
    pins.shareNews { news in
      guard let message = try? JSONEncoder().encode(news) else { return }
      relay.publish(.pins, channel: [], message: Array(message))
    }
    assets.shareNews { news in
      guard let message = try? JSONEncoder().encode(news) else { return }
      relay.publish(.assets, channel: [], message: Array(message))
    }
    venues.shareNews { news in
      guard let message = try? JSONEncoder().encode(news) else { return }
      relay.publish(.venues, channel: [], message: Array(message))
    }
    hub.relay(
      to: PubSubHub.Relay(maximumBytes: PostgresPubSub.maximumBytes) { channel, payload in
        relay.publish(channel: channel, message: Array(buffer: payload))
      })
    do {
      return try CardAtlasServer(
        configuration: configuration, keyspace: keyspace, storage: storage, hub: hub,
        parts: [
          parts(
            accounts, cards, views, wallets, notices, people, pins, documents, assets, venues,
            geocoder)
        ],
        logger: logger)
    } catch {
      await storage.close()
      throw error
    }
  }
}

extension PostgresNode {
  /// The commands of the services on PostgreSQL.
  static func parts(
    _ accounts: Accounts, _ cards: Cards, _ views: CardViews, _ wallets: Wallets,
    _ notices: Notices, _ people: People, _ pins: Pins, _ documents: Documents,
    _ assets: Assets, _ venues: Venues, _ geocoder: (any Geocoder)?
  ) -> ServerExtension.Parts {
    var parts = AccountCommands.parts(accounts)
    parts.commands += CardCommands(cards: cards, views: views, wallets: wallets).all
    parts.commands += WalletCommands(wallets: wallets, cards: cards).all
    parts.commands += NoticeCommands(notices: notices, views: views, wallets: wallets).all
    parts.commands += PeopleCommands(people: people, cards: cards).all
    parts.commands += PinCommands(pins: pins).all
    parts.commands += DocumentCommands(documents: documents).all
    parts.commands += AssetCommands(assets: assets).all
    parts.commands += VenueCommands(venues: venues, accounts: accounts).all
    parts.commands += ExposureCommands(venues: venues, accounts: accounts).all
    if let geocoder { parts.commands += GeocodeCommands(geocoder).all }
    return parts
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
