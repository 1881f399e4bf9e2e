import Foundation

/// A person's account: signs in with an email and a password (or a Google or Apple ID token),
/// owns cards, and is Pro or not.
public struct Account: Sendable, Equatable, Codable {
  public enum Role: String, Sendable, CaseIterable, Codable {
    case none
    /// A health authority: may run EXPOSURE.
    case health
  }

  public var id: Int64
  /// As given at sign-up; unique regardless of case (`emailKey`).
  public var email: String
  /// 6 lowercase letters and digits, unique: the account's share URLs start with it. Made from
  /// the id (`IdText`), or drawn at random for an account made before accounts-v3.
  public var username: String
  /// `PasswordHasher`'s form; nil for an account that signs in only with an ID token.
  var passwordHash: String?
  public var isPro: Bool
  public var role: Role
  public var createdAt: Date

  /// An account as a store read it back (`AccountStorage.load`).
  public init(
    id: Int64, email: String, username: String, passwordHash: String?, isPro: Bool, role: Role,
    createdAt: Date
  ) {
    self.id = id
    self.email = email
    self.username = username
    self.passwordHash = passwordHash
    self.isPro = isPro
    self.role = role
    self.createdAt = createdAt
  }

  /// The email as compared: case is ignored.
  public var emailKey: String { Self.key(email) }

  /// An email already in lower case is its own key: the same string, so the index by email
  /// holds no second copy of it.
  static func key(_ email: String) -> String {
    // Most emails are lower-case ASCII: no lowered copy made only to be compared.
    if email.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return email }
    let lowered = email.lowercased()
    return lowered == email ? email : lowered
  }

  /// A new account (its id and username from `IdText.firstFree`), created now.
  static func new(
    id: Int64, email: String, username: String, passwordHash: String?, isPro: Bool
  ) -> Account {
    Account(
      id: id, email: email, username: username, passwordHash: passwordHash, isPro: isPro,
      role: .none, createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded()))
  }
}

extension Account {
  /// `PasswordHasher`'s form, for the store.
  public var storedPasswordHash: String? { passwordHash }
}

extension Accounts {
  /// Usernames: 6 lowercase letters and digits made from the account's id, under the store's
  /// key for them.
  public static func usernames(key: Data) -> IdText {
    IdText(key: key, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789", length: 6)
  }
}

/// A signed-in device: its token is given to the client once, and only its hash is kept.
public struct StoredSession: Sendable, Equatable, Codable {
  public var id: Int64
  public var accountId: Int64
  public var tokenHash: String
  public var device: String?
  public var createdAt: Date

  public init(id: Int64, accountId: Int64, tokenHash: String, device: String?, createdAt: Date) {
    self.id = id
    self.accountId = accountId
    self.tokenHash = tokenHash
    self.device = device
    self.createdAt = createdAt
  }
}

/// A password reset asked for: valid once, until `expiresAt`.
public struct PasswordReset: Sendable, Equatable, Codable {
  public var tokenHash: String
  public var accountId: Int64
  public var expiresAt: Date

  public init(tokenHash: String, accountId: Int64, expiresAt: Date) {
    self.tokenHash = tokenHash
    self.accountId = accountId
    self.expiresAt = expiresAt
  }
}
