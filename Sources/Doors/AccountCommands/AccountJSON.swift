import Accounts
import Foundation
import NIOCore
import RESP

/// An account as its JSON reply shows it: never its password hash.
struct AccountJSON: Encodable {
  let id: Int64
  let username: String
  let email: String
  let isPro: Bool
  let role: String
  let createdAt: String

  init(_ account: Account) {
    id = account.id
    username = account.username
    email = account.email
    isPro = account.isPro
    role = account.role.rawValue
    createdAt = account.createdAt.formatted(Date.ISO8601FormatStyle())
  }

  static func reply(_ account: Account) -> RESPValue { json(AccountJSON(account)) }
}

/// A session as SESSION.LIST shows it: never its token.
struct SessionJSON: Encodable {
  let id: Int64
  let device: String?
  let createdAt: String
  /// The session this connection signed in with.
  let current: Bool

  init(_ session: Accounts.SessionInfo, current: Bool) {
    id = session.id
    device = session.device
    createdAt = session.createdAt.formatted(Date.ISO8601FormatStyle())
    self.current = current
  }
}

/// A JSON object as a bulk string, keys sorted so replies are stable.
func json(_ value: some Encodable) -> RESPValue {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
  return .bulkString(ByteBuffer(bytes: data))
}

extension AccountError {
  var reply: RESPValue { .error(message) }
}

extension Result where Failure == AccountError {
  /// The reply for a result: `format` of the value, or the error.
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): error.reply
    }
  }
}
