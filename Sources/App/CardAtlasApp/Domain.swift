import Accounts
import Assets
import Cards
import Documents
import DomainSupport
import GeocoderClients
import Geocoding
import MediaFiles
import People
import Pins
import SQLiteDomainStorage
import Store
import Venues

/// Every domain service, built once over one store, in dependency order, and handed (the same
/// instances) to the RESP commands and to the HTTP routes (`Daemon`).
public struct Domain: Sendable {
  /// Each service's settings, as `serve`'s options set them.
  public struct Configuration: Sendable {
    public var accounts = Accounts.Configuration()
    public var cards = Cards.Configuration()
    public var pins = Pins.Configuration()
    public var people = People.Configuration()
    public var documents = Documents.Configuration()
    public var venues = Venues.Configuration()
    public var assets = Assets.Configuration()
    /// GEOCODE's geocoder, made on the store's cache of answers; the cards and the venues
    /// use it unless given their own. Nil: no geocoder, and no GEOCODE.
    public var geocoder: (@Sendable (GeocodeCache) throws -> any Geocoder)?

    public init() {}
  }

  public let accounts: Accounts
  public let cards: Cards
  /// Counts opens of cards (CARD.GET, CARD.OPEN, the card pages).
  public let views: CardViews
  public let wallets: Wallets
  public let notices: Notices
  public let pins: Pins
  public let people: People
  public let documents: Documents
  public let venues: Venues
  public let assets: Assets
  public let geocoder: (any Geocoder)?

  /// Every service's tables, in the order they shipped: applied migrations are frozen, so
  /// this order never changes and a new table goes last.
  public static let migrations =
    SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
    + SQLiteCardViews.migrations
    + SQLitePins.migrations + SQLiteExchanges.migrations + SQLiteVenues.migrations
    + SQLiteDocuments.migrations
    + SQLiteAssets.migrations + SQLiteGeocodeCache.migrations

  /// Where every service keeps its records: the embedded store's tables and files
  /// (`embedded(_:)`), or the tables of a database many nodes share (`PostgresNode`).
  public struct Storage: Sendable {
    public var accounts: any AccountStorage
    /// Where mail the accounts cannot send goes (a directory).
    public var outbox: String
    public var cards: any CardStorage
    public var notices: any NoticeStorage
    public var views: any CardViewStorage
    public var wallets: any WalletStorage
    public var pins: any PinStorage
    public var pinPhotos: any MediaStore
    public var exchanges: any ExchangeStorage
    public var documents: any DocumentStorage
    public var documentFiles: any MediaStore
    public var venues: any VenueStorage
    public var assets: any AssetStorage
    public var assetFiles: any MediaStore
    public var geocodeCache: any GeocodeCacheStorage

    /// The embedded store's: its tables, and uploaded files under its directory.
    public static func embedded(_ store: Store) throws -> Storage {
      Storage(
        accounts: SQLiteAccounts(store), outbox: store.directory + "/outbox",
        cards: SQLiteCards(store), notices: SQLiteNoticeSettings(store),
        views: SQLiteCardViews(store), wallets: SQLiteWallets(store), pins: SQLitePins(store),
        pinPhotos: try MediaFiles(directory: store.directory + "/media/pins"),
        exchanges: SQLiteExchanges(store), documents: SQLiteDocuments(store),
        documentFiles: try MediaFiles(directory: store.directory + "/media/documents"),
        venues: SQLiteVenues(store), assets: SQLiteAssets(store),
        assetFiles: try MediaFiles(directory: store.directory + "/media/assets"),
        geocodeCache: SQLiteGeocodeCache(store))
    }
  }

  /// Loads every service's state from `store` (opened with `migrations`). As the store closes,
  /// the cards are kept as held, for the next start to load flat (`Cards.keepHeld`).
  public init(store: Store, notifier: any Notifier, configuration: Configuration) throws {
    try self.init(storage: .embedded(store), notifier: notifier, configuration: configuration)
    store.whenClosing { [cards] in try? cards.keepHeld() }
  }

  /// Loads every service's state from `storage`, in dependency order. What they publish goes
  /// to `notifier`.
  public init(storage: Storage, notifier: any Notifier, configuration: Configuration) throws {
    geocoder = try configuration.geocoder?(GeocodeCache(storage.geocodeCache))
    var cardSettings = configuration.cards
    if cardSettings.geocoder == nil { cardSettings.geocoder = geocoder }
    let heldCards = Cards.HeldRead(storage.cards, cardSettings)
    accounts = try Accounts(
      storage: storage.accounts, outbox: storage.outbox, configuration: configuration.accounts)
    cards = try Cards(
      storage: storage.cards, accounts: accounts, configuration: cardSettings, held: heldCards)
    notices = try Notices(storage: storage.notices, cards: cards, notifier: notifier)
    views = CardViews(storage: storage.views, cards: cards, notices: notices)
    wallets = try Wallets(storage: storage.wallets, cards: cards, notices: notices)
    pins = try Pins(
      storage: storage.pins, accounts: accounts, media: storage.pinPhotos,
      configuration: configuration.pins)
    people = try People(
      storage: storage.exchanges, accounts: accounts, cards: cards, wallets: wallets,
      notifier: notifier, configuration: configuration.people)
    documents = try Documents(
      storage: storage.documents, files: storage.documentFiles, accounts: accounts,
      configuration: configuration.documents)
    var venueSettings = configuration.venues
    if venueSettings.geocoder == nil { venueSettings.geocoder = cards.configuration.geocoder }
    venueSettings.publicURL = cards.configuration.publicURL
    if venueSettings.positiveTest == nil {
      // EXPOSURE.REPORT asks for the reporter's latest positive test on file.
      venueSettings.positiveTest = { [documents] in documents.positiveTest(of: $0) }
    }
    venues = try Venues(
      storage: storage.venues, accounts: accounts, notifier: notifier,
      configuration: venueSettings)
    var assetSettings = configuration.assets
    assetSettings.publicURL = cards.configuration.publicURL
    assets = try Assets(
      storage: storage.assets, accounts: accounts, cards: cards, media: storage.assetFiles,
      configuration: assetSettings)
  }
}
