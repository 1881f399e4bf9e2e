import DomainSupport
import Foundation

/// The accounts in memory (`Accounts.State`), by id, as compact records: the email and the
/// password hash in a byte arena, the username packed in an integer. Held as `Account` values,
/// a million accounts took 72 bytes each, and 64 more for each email's own allocation; an
/// account is made whole when read.
struct HeldAccounts {
  private struct Record {
    let createdAt: Double
    /// The username's ASCII bytes (`PackedASCII`).
    let username: UInt64
    let email: ByteArena.Slot
    let passwordHash: ByteArena.Slot?
    let isPro: Bool
    let role: Account.Role
  }

  private var records = IdTable<Record>()
  private var texts = ByteArena()

  var count: Int { records.count }

  subscript(id: Int64) -> Account? {
    get { records[id].map { account(id, $0) } }
    set {
      if let old = records[id] {
        texts.release(old.email)
        if let hash = old.passwordHash { texts.release(hash) }
        records[id] = nil
      }
      guard let account = newValue else { return }
      guard let username = PackedASCII.pack(account.username, bytes: 8) else {
        preconditionFailure("usernames are the server's: short ASCII")
      }
      records[id] = Record(
        createdAt: account.createdAt.timeIntervalSinceReferenceDate, username: username,
        email: texts.store(account.email.utf8),
        passwordHash: account.passwordHash.map { texts.store($0.utf8) }, isPro: account.isPro,
        role: account.role)
    }
  }

  /// The account's email as compared (`Account.key`).
  func emailKey(of id: Int64) -> String? {
    records[id].map { record in
      Account.key(texts.withBytes(record.email) { String(decoding: $0, as: UTF8.self) })
    }
  }

  /// The account's username, packed.
  func username(of id: Int64) -> UInt64? { records[id]?.username }

  private func account(_ id: Int64, _ record: Record) -> Account {
    texts.withStorage { storage in
      Account(
        id: id, email: String(decoding: storage.bytes(record.email), as: UTF8.self),
        username: PackedASCII.text(record.username),
        passwordHash: record.passwordHash.map {
          String(decoding: storage.bytes($0), as: UTF8.self)
        },
        isPro: record.isPro, role: record.role,
        createdAt: Date(timeIntervalSinceReferenceDate: record.createdAt))
    }
  }
}
