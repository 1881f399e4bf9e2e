/// Signs accounts in for AUTH <email> <password> and HELLO's AUTH: brought by the accounts
/// module, so that Redis's own sign-in commands serve its accounts too.
public protocol AccountSignIn: Sendable {
  /// Checks the credentials, off the caller's thread (a slow KDF), and answers with the
  /// account's id or with the error to reply.
  func signIn(
    email: String, password: String, address: String,
    _ done: @escaping @Sendable (Result<SignedInAccount, SignInRefused>) -> Void)

  /// Moves on whenever a sign-in may have ended (a password changed or reset, an account
  /// deleted, a session closed): while it has not, every signed-in connection still is.
  var revocations: Int { get }

  /// Whether a connection signed in as `signedIn` still is.
  func isSignedIn(_ signedIn: SignedInAccount) -> Bool
}

/// Why a sign-in was refused, as the error reply says it: never whether the email exists.
public struct SignInRefused: Error, Sendable {
  public let message: String
  public init(_ message: String) { self.message = message }
}
