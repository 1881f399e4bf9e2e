import Foundation
import GRDB

/// A person's account: signs in with an email and a password (or a Google or Apple ID token),
/// owns cards, and is Pro or not.
public struct Account: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
  public enum Role: String, Sendable, Codable, CaseIterable {
    case none
    /// A health authority: may run EXPOSURE.
    case health
  }

  public var id: Int64
  /// As given at sign-up; unique regardless of case (`emailKey`).
  public var email: String
  /// 6 lowercase letters and digits, unique: the account's share URLs start with it.
  public var username: String
  /// `PasswordHasher`'s form; nil for an account that signs in only with an ID token.
  var passwordHash: String?
  public var isPro: Bool
  public var role: Role
  public var createdAt: Date

  public static let databaseTableName = "accounts"
  public static let databaseColumnDecodingStrategy =
    DatabaseColumnDecodingStrategy.convertFromSnakeCase
  public static let databaseDateDecodingStrategy =
    DatabaseDateDecodingStrategy.timeIntervalSince1970

  /// The email as compared: case is ignored.
  public var emailKey: String { Self.key(email) }

  static func key(_ email: String) -> String { email.lowercased() }

  /// A new account (the username drawn unique by the caller), created now.
  static func new(
    id: Int64, email: String, username: String, passwordHash: String?, isPro: Bool
  ) -> Account {
    Account(
      id: id, email: email, username: username, passwordHash: passwordHash, isPro: isPro,
      role: .none, createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded()))
  }

  /// Inserts the new account's row: the columns `encode(to:)` names, through a cached
  /// statement (GRDB's `Codable` insert was a bulk import's second-largest write cost).
  func write(_ db: Database) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO accounts
          (id, email, email_key, username, password_hash, is_pro, role, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(
      arguments: [
        id, email, emailKey, username, passwordHash, isPro, role.rawValue,
        createdAt.timeIntervalSince1970,
      ])
  }

  /// The stored columns: the email key too, which the table keeps unique.
  public func encode(to container: inout PersistenceContainer) throws {
    container["id"] = id
    container["email"] = email
    container["email_key"] = emailKey
    container["username"] = username
    container["password_hash"] = passwordHash
    container["is_pro"] = isPro
    container["role"] = role.rawValue
    container["created_at"] = createdAt.timeIntervalSince1970
  }
}

/// A signed-in device: its token is given to the client once, and only its hash is kept.
struct StoredSession: Sendable, Codable, FetchableRecord, PersistableRecord {
  var id: Int64
  var accountId: Int64
  var tokenHash: String
  var device: String?
  var createdAt: Date

  static let databaseTableName = "account_sessions"
  static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
  static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
  static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSince1970
  static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.timeIntervalSince1970
}

/// A password reset asked for: valid once, until `expiresAt`.
struct PasswordReset: Sendable, Codable, FetchableRecord, PersistableRecord {
  var tokenHash: String
  var accountId: Int64
  var expiresAt: Date

  static let databaseTableName = "password_resets"
  static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
  static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
  static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.timeIntervalSince1970
  static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.timeIntervalSince1970
}
