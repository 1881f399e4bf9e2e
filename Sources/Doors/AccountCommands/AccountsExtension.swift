import Accounts
import Server
import Store

extension ServerExtension {
  /// The accounts module alone, as the server composes it.
  public static func accounts(_ configuration: Accounts.Configuration = .init()) -> ServerExtension
  {
    ServerExtension(name: "accounts", migrations: Accounts.migrations) { store in
      AccountCommands.parts(try Accounts(store: store, configuration: configuration))
    }
  }
}

extension AccountCommands {
  /// What the accounts bring to a server: their commands and AUTH's sign-in.
  public static func parts(_ accounts: Accounts) -> ServerExtension.Parts {
    ServerExtension.Parts(
      commands: AccountCommands(accounts: accounts).all,
      accounts: AccountsSignIn(accounts: accounts))
  }
}
