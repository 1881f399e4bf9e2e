import Accounts
import Hummingbird

/// The account a request is signed in as by `Authorization: Bearer <session token>` (what
/// SESSION.RESUME takes); nil without one or with a token no session holds.
enum BearerToken {
  static func account(_ request: Request, _ accounts: Accounts) -> Int64? {
    guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
      case .success(let session) = accounts.resume(token: String(header.dropFirst(7)))
    else { return nil }
    return session.account.id
  }

  /// 401, saying how to sign in.
  static var challenge: Response {
    var response = PageResponse.text(
      "sign in: send a session token as Authorization: Bearer <token>\n", status: .unauthorized)
    response.headers[.wwwAuthenticate] = "Bearer"
    return response
  }
}
