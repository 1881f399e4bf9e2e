import Accounts
import Hummingbird

/// The account a request is signed in as by `Authorization: Bearer <session token>` (what
/// SESSION.RESUME takes); nil without one or with a token no session holds.
enum BearerToken {
  static func account(_ request: Request, _ accounts: Accounts) -> Int64? {
    guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ")
    else { return nil }
    let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
    guard case .success(let session) = accounts.resume(token: token) else { return nil }
    return session.account.id
  }

  /// The API's form: a 401 `APIError` without a token or with one no session holds.
  static func apiAccount(_ request: Request, _ accounts: Accounts) throws(APIError) -> Int64 {
    guard request.headers[.authorization] != nil else {
      throw APIError(.unauthorized, "NOAUTH a session token is required (Authorization: Bearer)")
    }
    guard let account = account(request, accounts) else {
      throw APIError(.unauthorized, "NOAUTH invalid or expired session token")
    }
    return account
  }

  /// 401, saying how to sign in (a page's; the API answers JSON).
  static var challenge: Response {
    var response = PageResponse.text(
      "sign in: send a session token as Authorization: Bearer <token>\n", status: .unauthorized)
    response.headers[.wwwAuthenticate] = "Bearer"
    return response
  }
}
