import Foundation
import GRDB

/// A person's account: signs in with an email and a password (or a Google or Apple ID token),
/// owns cards, and is Pro or not.
public struct Account: Sendable, Equatable {
  public enum Role: String, Sendable, CaseIterable {
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

  public static let databaseTableName = "accounts"

  /// The email as compared: case is ignored.
  public var emailKey: String { Self.key(email) }

  static func key(_ email: String) -> String { email.lowercased() }

  /// A new account (its id and username from `IdText.firstFree`), created now.
  static func new(
    id: Int64, email: String, username: String, passwordHash: String?, isPro: Bool
  ) -> Account {
    Account(
      id: id, email: email, username: username, passwordHash: passwordHash, isPro: isPro,
      role: .none, createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded()))
  }

  /// Inserts the new account's row through a cached statement (GRDB's `Codable` insert was a
  /// bulk import's second-largest write cost); a new account's username is its id's, not stored.
  func write(_ db: Database) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO accounts (id, email, email_key, password_hash, is_pro, role, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(
      arguments: [
        id, email, emailKey, passwordHash, isPro, role.rawValue, createdAt.timeIntervalSince1970,
      ])
  }
}

extension Accounts {
  /// Usernames: 6 lowercase letters and digits made from the account's id.
  public static func usernames(_ db: Database) throws -> IdText {
    try IdText(
      purpose: "usernames", alphabet: "abcdefghijklmnopqrstuvwxyz0123456789", length: 6, db)
  }
}

extension Account {
  /// The columns `init(_:usernames:)` reads, in its order.
  static let columns = "id, email, username, password_hash, is_pro, role, created_at"

  /// An account's row (`columns`): its username the one it was given, else its id's.
  init(_ row: Row, usernames: IdText) {
    let id: Int64 = row[0]
    self.init(
      id: id, email: row[1], username: row[2] ?? usernames.text(id), passwordHash: row[3],
      isPro: row[4], role: Role(rawValue: row[5]) ?? .none,
      createdAt: Date(timeIntervalSince1970: row[6]))
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
