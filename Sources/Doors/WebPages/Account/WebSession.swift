import Accounts
import Crypto
import Foundation
import Hummingbird

/// The account pages' browser session: a session token (what SESSION.OPEN gives) in an
/// `HttpOnly; Secure; SameSite=Lax` cookie (`Secure` but on a developer's loopback HTTP:
/// `AccountSite`), and the forms' CSRF checks.
///
/// Every form carries a token derived from a random value in a second cookie and from the
/// session's token (a SHA-256 of both): a page elsewhere can read neither, so it cannot make a
/// form this server takes, even one that signs a browser in (login CSRF). A POST must also
/// come from this origin when the browser says where it comes from (`Origin`,
/// `Sec-Fetch-Site`).
enum WebSession {
  static let cookie = CardPages.sessionCookie
  static let formCookie = "cardatlas_form"
  /// A browser session lasts as a session does (until signed out, closed or the password
  /// changes); the cookie, 30 days.
  static let maxAge = 30 * 24 * 3600

  /// The signed-in account of the request's session cookie, its session and its token.
  struct SignedIn {
    let account: Account
    let sessionID: Int64
    let token: String
  }

  static func signedIn(_ request: Request, _ accounts: Accounts) -> SignedIn? {
    guard let token = request.cookies[cookie]?.value,
      case .success(let session) = accounts.resume(token: token)
    else { return nil }
    return SignedIn(account: session.account, sessionID: session.sessionID, token: token)
  }

  static func sessionCookie(_ token: String, secure: Bool) -> Cookie {
    Cookie(
      name: cookie, value: token, maxAge: maxAge, path: "/", secure: secure, httpOnly: true,
      sameSite: .lax)
  }

  /// Ends the cookie in the browser.
  static func expiredSessionCookie(secure: Bool) -> Cookie {
    Cookie(
      name: cookie, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true,
      sameSite: .lax)
  }

  /// The request's form value, or a new one and the cookie that sets it.
  static func formValue(_ request: Request, secure: Bool) -> (value: String, cookie: Cookie?) {
    if let value = request.cookies[formCookie]?.value, value.utf8.count == 43 {
      return (value, nil)
    }
    let value = newValue()
    return (
      value,
      Cookie(
        name: formCookie, value: value, path: "/", secure: secure, httpOnly: true,
        sameSite: .lax)
    )
  }

  /// The token a form carries, for the browser's form value and its session (if any).
  static func csrfToken(formValue: String, session: String?) -> String {
    let digest = SHA256.hash(data: Data("cardatlas-form\n\(formValue)\n\(session ?? "")".utf8))
    return base64URL(Data(digest))
  }

  /// Whether a POST may act: it comes from this origin (as far as the browser says) and its
  /// `csrf` field is the token of its cookies.
  static func accepts(_ request: Request, _ form: SubmittedForm) -> Bool {
    guard sameOrigin(request), let sent = form["csrf"],
      let value = request.cookies[formCookie]?.value
    else { return false }
    let expected = csrfToken(formValue: value, session: request.cookies[cookie]?.value)
    return constantTimeEqual(Array(sent.utf8), Array(expected.utf8))
  }

  /// A browser sends `Origin` with a POST, and `Sec-Fetch-Site`; either naming another site
  /// refuses it. The host compared is the one the request was sent to.
  static func sameOrigin(_ request: Request) -> Bool {
    if let site = request.headers[.init("Sec-Fetch-Site")!],
      !["same-origin", "none"].contains(site)
    {
      return false
    }
    guard let origin = request.headers[.origin] else { return true }
    guard let host = request.head.authority,
      let url = URL(string: origin), let originHost = url.host
    else { return false }
    let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
    return originAuthority.lowercased() == host.lowercased()
  }

  static func newValue() -> String {
    var generator = SystemRandomNumberGenerator()
    return base64URL(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
  }

  static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}
