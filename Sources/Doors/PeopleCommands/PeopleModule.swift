import CardCommands
import People

extension People {
  /// People nearby and exchanges, as a module built on the accounts and cards.
  public static func module(_ configuration: Configuration = .init()) -> CardDomainModule {
    CardDomainModule(name: "people", migrations: People.migrations) { domain in
      let people = try People(
        domain: domain.store, accounts: domain.accounts, cards: domain.cards,
        wallets: domain.wallets, notifier: domain.notifier, configuration: configuration)
      return PeopleCommands(people: people, cards: domain.cards).all
    }
  }
}
