import Accounts
import Server
import Store

extension ServerExtension {
  /// The accounts module, as the server composes it.
  public static func accounts(_ configuration: Accounts.Configuration = .init()) -> ServerExtension
  {
    ServerExtension(name: "accounts", migrations: Accounts.migrations) { store in
      let accounts = try Accounts(store: store, configuration: configuration)
      return Parts(
        commands: AccountCommands(accounts: accounts).all,
        accounts: AccountsSignIn(accounts: accounts))
    }
  }
}
