import AccountCommands
import Accounts
import Cards
import Commands
import Notifications
import Server
import Store

extension ServerExtension {
  /// Accounts, cards and wallets, as the server composes them: cards need the accounts (owners,
  /// plans), wallets the cards, so they start together; `modules` built on them (pins, people,
  /// venues) start after them, in order.
  public static func accountsAndCards(
    accounts: Accounts.Configuration = .init(), cards: Cards.Configuration = .init(),
    modules: [CardDomainModule] = []
  ) -> ServerExtension {
    ServerExtension(
      name: "accounts+cards",
      migrations: Accounts.migrations + Cards.migrations + Wallets.migrations
        + CardViews.migrations + modules.flatMap(\.migrations)
    ) { store, notifier in
      let owners = try Accounts(store: store, configuration: accounts)
      var parts = AccountCommands.parts(owners)
      let cardsModel = try Cards(store: store, accounts: owners, configuration: cards)
      let notices = try Notices(store: store, cards: cardsModel, notifier: notifier)
      let views = CardViews(store: store, cards: cardsModel, notices: notices)
      let wallets = try Wallets(store: store, cards: cardsModel, notices: notices)
      parts.commands += CardCommands(cards: cardsModel, views: views, wallets: wallets).all
      parts.commands += WalletCommands(wallets: wallets, cards: cardsModel).all
      parts.commands += NoticeCommands(notices: notices, views: views, wallets: wallets).all
      let domain = CardDomain(
        store: store, notifier: notifier, accounts: owners, cards: cardsModel, views: views,
        wallets: wallets, notices: notices, services: DomainServices())
      for module in modules { parts.commands += try module.start(domain) }
      parts.loadDemo = { try DemoCards.loadIfEmpty(accounts: owners, cards: cardsModel) }
      return parts
    }
  }
}

/// What a module built on the accounts and cards is given as it starts.
public struct CardDomain: Sendable {
  public let store: Store
  /// Delivers what the module publishes to subscribed connections (pub/sub).
  public let notifier: any Notifier
  public let accounts: Accounts
  public let cards: Cards
  /// Counts opens of cards (CARD.GET, CARD.OPEN, the card pages).
  public let views: CardViews
  public let wallets: Wallets
  public let notices: Notices
  /// The instances modules started before this one registered (`DomainServices`).
  public let services: DomainServices
}

/// A domain module built on the accounts and cards (pins, people, venues): its frozen
/// migrations, appended after theirs, and its commands once they have started.
public struct CardDomainModule: Sendable {
  public let name: String
  public let migrations: [StoreMigration]
  public let start: @Sendable (CardDomain) throws -> [CommandSpec]

  public init(
    name: String, migrations: [StoreMigration],
    start: @escaping @Sendable (CardDomain) throws -> [CommandSpec]
  ) {
    self.name = name
    self.migrations = migrations
    self.start = start
  }
}

extension CardDomainModule {
  /// Hands the started domain to `receive`, which keeps it (the HTTP side serves the same
  /// instances as the commands); adds no tables or commands.
  public static func handOver(_ receive: @escaping @Sendable (CardDomain) throws -> Void)
    -> CardDomainModule
  {
    CardDomainModule(name: "hand-over", migrations: []) { domain in
      try receive(domain)
      return []
    }
  }
}
