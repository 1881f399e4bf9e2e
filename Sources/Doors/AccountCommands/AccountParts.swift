import Accounts
import Server

extension AccountCommands {
  /// What the accounts bring to a server: their commands and AUTH's sign-in.
  public static func parts(_ accounts: Accounts) -> ServerExtension.Parts {
    ServerExtension.Parts(
      commands: AccountCommands(accounts: accounts).all,
      accounts: AccountsSignIn(accounts: accounts))
  }
}
