import Foundation
import RESP
import RESPClient

extension RESPClient {
  /// A fresh account signed in on this connection, and a session token for it. Sign-up answers
  /// alike whether or not the email is taken, so an earlier run's account is found by signing
  /// in (the load's password is its own): then it is deleted, with all it owned, and made again.
  func freshAccount(email: String, password: String) async throws -> (id: Int, token: String) {
    var id = try await expectID(send("ACCOUNT.CREATE", email, password), "ACCOUNT.CREATE")
    var token = try await expectText(send("SESSION.OPEN", email, password), "SESSION.OPEN")
    if try await expectID(send("WHOAMI"), "WHOAMI") != id {
      _ = try await expectText(send("ACCOUNT.DELETE", password), "ACCOUNT.DELETE")
      id = try await expectID(send("ACCOUNT.CREATE", email, password), "ACCOUNT.CREATE")
      token = try await expectText(send("SESSION.OPEN", email, password), "SESSION.OPEN")
    }
    return (id, token)
  }

  private func expectText(_ reply: RESPValue, _ what: String) throws -> String {
    switch reply {
    case .bulkString(let b): return String(buffer: b)
    case .simpleString(let s): return s
    case .error(let e): throw setupFailed("\(what) failed: \(e)")
    default: throw setupFailed("\(what) answered \(reply)")
    }
  }

  private func expectID(_ reply: RESPValue, _ what: String) throws -> Int {
    let text = try expectText(reply, what)
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let id = object["id"] as? Int
    else { throw setupFailed("\(what) answered \(text)") }
    return id
  }

  private func setupFailed(_ reason: String) -> LoadGenError {
    .setupFailed(server: server, reason: reason)
  }
}
