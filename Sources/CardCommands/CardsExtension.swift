import AccountCommands
import Accounts
import Cards
import Server
import Store

extension ServerExtension {
  /// Accounts, cards and wallets, as the server composes them: cards need the accounts (owners,
  /// plans), wallets the cards, so they start together.
  public static func accountsAndCards(
    accounts: Accounts.Configuration = .init(), cards: Cards.Configuration = .init()
  ) -> ServerExtension {
    ServerExtension(
      name: "accounts+cards",
      migrations: Accounts.migrations + Cards.migrations + Wallets.migrations
        + CardViews.migrations
    ) { store, notifier in
      let owners = try Accounts(store: store, configuration: accounts)
      var parts = AccountCommands.parts(owners)
      let cardsModel = try Cards(store: store, accounts: owners, configuration: cards)
      let notices = try Notices(store: store, cards: cardsModel, notifier: notifier)
      let views = CardViews(store: store, cards: cardsModel, notices: notices)
      parts.commands += CardCommands(cards: cardsModel, views: views).all
      let wallets = try Wallets(store: store, cards: cardsModel, notices: notices)
      parts.commands += WalletCommands(wallets: wallets, cards: cardsModel).all
      parts.commands += NoticeCommands(notices: notices, views: views, wallets: wallets).all
      parts.loadDemo = { try DemoCards.loadIfEmpty(accounts: owners, cards: cardsModel) }
      return parts
    }
  }
}
