import Foundation
import NIOCore

extension RESPConnection {
  /// A reply as text: a bulk string's contents, an error's or status's line, an integer.
  public func text(_ arguments: String...) throws -> String { try text(arguments) }

  public func text(_ arguments: [String]) throws -> String {
    switch try command(arguments).value {
    case .bulkString(let b): return String(buffer: b)
    case .error(let e): return e
    case .simpleString(let s): return s
    case .integer(let i): return String(i)
    case let other: return "\(other)"
    }
  }

  /// A JSON object reply, decoded.
  public func object(_ arguments: String...) throws -> [String: Any] {
    let reply = try text(arguments)
    guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
    else { throw RESPConnection.Failed(description: "not a JSON object: \(reply)") }
    return object
  }
}

extension RESPConnection {
  /// Makes an account (password `secret1`) and signs this connection in as it: its id and
  /// username.
  public func signUp(_ email: String) throws -> (id: Int, username: String) {
    let account = try object("ACCOUNT.CREATE", email, "secret1")
    guard try text("AUTH", email, "secret1") == "OK" else {
      throw RESPConnection.Failed(description: "cannot sign in \(email)")
    }
    return (account["id"] as? Int ?? 0, account["username"] as? String ?? "")
  }
}
