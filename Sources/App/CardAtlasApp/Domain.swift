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

  /// Loads every service's state from `store` (opened with `migrations`). What they publish
  /// goes to `notifier`; uploaded files live in the store's directory.
  public init(store: Store, notifier: any Notifier, configuration: Configuration) throws {
    geocoder = try configuration.geocoder?(GeocodeCache(SQLiteGeocodeCache(store)))
    accounts = try Accounts(
      storage: SQLiteAccounts(store), outbox: store.directory + "/outbox",
      configuration: configuration.accounts)
    var cardSettings = configuration.cards
    if cardSettings.geocoder == nil { cardSettings.geocoder = geocoder }
    cards = try Cards(storage: SQLiteCards(store), accounts: accounts, configuration: cardSettings)
    notices = try Notices(storage: SQLiteNoticeSettings(store), cards: cards, notifier: notifier)
    views = CardViews(storage: SQLiteCardViews(store), cards: cards, notices: notices)
    wallets = try Wallets(storage: SQLiteWallets(store), cards: cards, notices: notices)
    pins = try Pins(
      storage: SQLitePins(store), accounts: accounts,
      media: try MediaFiles(directory: store.directory + "/media/pins"),
      configuration: configuration.pins)
    people = try People(
      storage: SQLiteExchanges(store), accounts: accounts, cards: cards, wallets: wallets,
      notifier: notifier,
      configuration: configuration.people)
    documents = try Documents(
      storage: SQLiteDocuments(store),
      files: try MediaFiles(directory: store.directory + "/media/documents"), accounts: accounts,
      configuration: configuration.documents)
    var venueSettings = configuration.venues
    if venueSettings.geocoder == nil { venueSettings.geocoder = cards.configuration.geocoder }
    if venueSettings.positiveTest == nil {
      // EXPOSURE.REPORT asks for the reporter's latest positive test on file.
      venueSettings.positiveTest = { [documents] in documents.positiveTest(of: $0) }
    }
    venues = try Venues(
      storage: SQLiteVenues(store), accounts: accounts, notifier: notifier,
      configuration: venueSettings)
    var assetSettings = configuration.assets
    assetSettings.publicURL = cards.configuration.publicURL
    assets = try Assets(
      storage: SQLiteAssets(store), accounts: accounts, cards: cards,
      media: try MediaFiles(directory: store.directory + "/media/assets"),
      configuration: assetSettings)
  }
}
