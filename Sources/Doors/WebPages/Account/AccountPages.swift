import Accounts
import Assets
import Cards
import ErrorLines
import Foundation
import Hummingbird
import Mustache
import RateLimits
import Venues

/// Signing up, in and out, and resetting a password on the web (`/account/…`): server-drawn
/// forms that call the same `Accounts` functions as ACCOUNT.CREATE, SESSION.OPEN,
/// SESSION.CLOSE, ACCOUNT.RESET.REQUEST and ACCOUNT.RESET. A signed-in browser holds a session
/// token in a cookie (`WebSession`); the account's cards and wallet are `MyCardPages` and
/// `WalletPages`.
struct AccountPages: Sendable {
  let accounts: Accounts
  let cards: Cards
  let wallets: Wallets
  let assets: Assets
  let venues: Venues
  let site: AccountSite

  /// A form without a file: its fields are short.
  static let maxFormBytes = 64 * 1024

  func add(to router: Router<PageContext>) {
    router.get("/account") { request, _ in
      AccountPage.redirect(
        WebSession.signedIn(request, accounts) == nil ? "/account/signin" : "/account/cards")
    }
    router.get("/account/signup") { request, _ in signUpForm(request) }
    router.post("/account/signup") { request, context in
      await posted(request) { await signUp(request, context, $0) }
    }
    router.get("/account/signin") { request, _ in signInForm(request) }
    router.post("/account/signin") { request, context in
      await posted(request) { await signIn(request, context, $0) }
    }
    router.post("/account/signout") { request, _ in
      await posted(request) { _ in
        if let session = WebSession.signedIn(request, accounts) {
          _ = await AccountPage.finished {
            accounts.closeSessions(of: session.account.id, only: session.sessionID, $0)
          }
        }
        return AccountPage.redirect(
          "/account/signin?out=1",
          cookies: [WebSession.expiredSessionCookie(secure: site.secureCookies)])
      }
    }
    router.get("/account/reset") { request, _ in
      resetForm(request, token: request.uri.queryParameters.get("token").map { String($0) })
    }
    router.post("/account/reset") { request, context in
      await posted(request) { await requestReset(request, context, $0) }
    }
    router.post("/account/reset/confirm") { request, _ in
      await posted(request) { await reset(request, $0) }
    }
    MyCardPages(pages: self).add(to: router)
    WalletPages(pages: self).add(to: router)
    CheckInPages(pages: self).add(to: router)
  }

  // MARK: Posting

  /// Reads a POSTed form (at most `limit` bytes) and checks its CSRF token and origin; then
  /// `body` acts. Anything else is refused with nothing done.
  func posted(
    _ request: Request, limit: Int = maxFormBytes,
    _ body: (SubmittedForm) async -> Response
  ) async -> Response {
    let form: SubmittedForm
    do {
      form = try await SubmittedForm.read(request, limit: limit)
    } catch {
      return AccountPage.refused(site, error.message, status: error.status)
    }
    guard WebSession.accepts(request, form) else {
      return AccountPage.refused(site, AccountPage.staleForm, status: .forbidden)
    }
    return await body(form)
  }

  /// `posted`, for the session cookie's account; without one, to the sign-in page before
  /// the body is read (a card's form may be megabytes: only an account's are read).
  func postedSignedIn(
    _ request: Request, limit: Int = maxFormBytes,
    _ body: (SubmittedForm, WebSession.SignedIn) async -> Response
  ) async -> Response {
    guard let session = WebSession.signedIn(request, accounts) else {
      return AccountPage.redirect("/account/signin")
    }
    return await posted(request, limit: limit) { await body($0, session) }
  }

  /// A page for the session cookie's account; without one, to the sign-in page.
  func signedInPage(_ request: Request, _ body: (WebSession.SignedIn) -> Response) -> Response {
    guard let session = WebSession.signedIn(request, accounts) else {
      return AccountPage.redirect("/account/signin")
    }
    return body(session)
  }

  static func address(_ context: PageContext) -> String {
    ClientAddress.key(context.remoteAddress?.ipAddress ?? "?")
  }

  // MARK: Signing up and in

  func signUpForm(
    _ request: Request, email: String? = nil, error: String? = nil,
    status: HTTPResponse.Status = .ok
  ) -> Response {
    AccountPage.render(
      site,
      AccountPage.Form(
        title: "Create your account", heading: "Create your account", action: "/account/signup",
        submit: "Create account", error: error,
        fields: [
          .init(
            label: "Email", name: "email", kind: .input(type: "email"), value: email,
            autocomplete: "email", required: true, maxLength: Validation.maximumEmailLength),
          .init(
            label: "Password (at least \(Validation.minimumPasswordLength) characters)",
            name: "password", kind: .input(type: "password"), autocomplete: "new-password",
            required: true, maxLength: Validation.maximumPasswordLength),
        ],
        links: [("Have an account?", "/account/signin", "Sign in")]),
      request: request, signedIn: false, status: status)
  }

  /// As ACCOUNT.CREATE: a taken email answers as a new one does (its owner is mailed), so the
  /// page goes on to signing in either way.
  func signUp(_ request: Request, _ context: PageContext, _ form: SubmittedForm) async -> Response {
    let email = form["email"] ?? ""
    let made = await AccountPage.finished {
      accounts.create(
        email: email, password: form["password"] ?? "", address: Self.address(context), $0)
    }
    switch made {
    case .success: return AccountPage.redirect("/account/signin?made=1")
    case .failure(let error):
      let (message, status) = Self.refusal(error)
      return Self.retrying(
        signUpForm(request, email: email, error: message, status: status), error)
    }
  }

  func signInForm(
    _ request: Request, email: String? = nil, error: String? = nil,
    status: HTTPResponse.Status = .ok, next: String? = nil
  ) -> Response {
    let query = request.uri.queryParameters
    let done: String? =
      if query.get("made") != nil {
        "Thank you. Sign in with your email and password."
      } else if query.get("reset") != nil {
        "Your password is changed. Sign in with the new one."
      } else if query.get("out") != nil {
        "You are signed out."
      } else { nil }
    var hidden: [String: String] = [:]
    hidden["next"] = Self.returnPath(next ?? query.get("next").map { String($0) })
    return AccountPage.render(
      site,
      AccountPage.Form(
        title: "Sign in", heading: "Sign in", action: "/account/signin", submit: "Sign in",
        done: error == nil ? done : nil, error: error,
        fields: [
          .init(
            label: "Email", name: "email", kind: .input(type: "email"), value: email,
            autocomplete: "email", required: true, maxLength: Validation.maximumEmailLength),
          .init(
            label: "Password", name: "password", kind: .input(type: "password"),
            autocomplete: "current-password", required: true,
            maxLength: Validation.maximumPasswordLength),
        ],
        hidden: hidden,
        links: [
          ("New here?", "/account/signup", "Create an account"),
          ("Forgot your password?", "/account/reset", "Reset it"),
        ]),
      request: request, signedIn: false, status: status)
  }

  /// Where a sign-in may send the browser on: a venue's check-in page only (`/v/<code>`), so
  /// that no link can make this site redirect elsewhere.
  static func returnPath(_ path: String?) -> String? {
    guard let path, path.hasPrefix("/v/"), path.utf8.count <= 64,
      path.dropFirst(3).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
      path.count > 3
    else { return nil }
    return path
  }

  /// As SESSION.OPEN: a session for this browser, its token in the session cookie. A wrong
  /// email and a wrong password answer alike.
  func signIn(_ request: Request, _ context: PageContext, _ form: SubmittedForm) async -> Response {
    let email = form["email"] ?? ""
    let device = "web: " + (request.headers[.userAgent] ?? "browser")
    let opened = await AccountPage.finished {
      accounts.openSession(
        email: email, password: form["password"] ?? "", device: device,
        address: Self.address(context), $0)
    }
    switch opened {
    case .success(let session):
      return AccountPage.redirect(
        Self.returnPath(form["next"]) ?? "/account/cards",
        cookies: [WebSession.sessionCookie(session.token, secure: site.secureCookies)])
    case .failure(let error):
      let (message, status) = Self.refusal(error)
      return Self.retrying(
        signInForm(request, email: email, error: message, status: status, next: form["next"]),
        error)
    }
  }

  // MARK: Resetting a password

  /// The form asking for a reset mail; with `?token=` (the mail's link), the new password's.
  func resetForm(
    _ request: Request, token: String?, error: String? = nil, status: HTTPResponse.Status = .ok
  ) -> Response {
    if let token {
      return AccountPage.render(
        site,
        AccountPage.Form(
          title: "New password", heading: "Choose a new password",
          action: "/account/reset/confirm", submit: "Set the password", error: error,
          fields: [
            .init(
              label: "New password (at least \(Validation.minimumPasswordLength) characters)",
              name: "password", kind: .input(type: "password"), autocomplete: "new-password",
              required: true, maxLength: Validation.maximumPasswordLength)
          ],
          hidden: ["token": token]),
        request: request, signedIn: false, status: status)
    }
    return AccountPage.render(
      site,
      AccountPage.Form(
        title: "Reset your password", heading: "Reset your password",
        action: "/account/reset", submit: "Send the link",
        intro: "We mail a link to set a new password to the account's email.", error: error,
        fields: [
          .init(
            label: "Email", name: "email", kind: .input(type: "email"), autocomplete: "email",
            required: true, maxLength: Validation.maximumEmailLength)
        ],
        links: [("Remembered it?", "/account/signin", "Sign in")]),
      request: request, signedIn: false, status: status)
  }

  /// As ACCOUNT.RESET.REQUEST: the same page whether or not the email has an account.
  func requestReset(_ request: Request, _ context: PageContext, _ form: SubmittedForm) async
    -> Response
  {
    let asked = await AccountPage.finished {
      accounts.requestReset(email: form["email"] ?? "", address: Self.address(context), $0)
    }
    if case .failure(let error) = asked {
      let (message, status) = Self.refusal(error)
      return Self.retrying(
        resetForm(request, token: nil, error: message, status: status), error)
    }
    return AccountPage.render(
      site, "notice",
      [
        "title": "Check your mail", "heading": "Check your mail.",
        "detail":
          "If an account has this email, a message with a link to set a new password is on its way.",
      ], request: request)
  }

  /// As ACCOUNT.RESET: the token of the mail's link and a new password; every session of the
  /// account closes, this browser's too.
  func reset(_ request: Request, _ form: SubmittedForm) async -> Response {
    let token = form["token"] ?? ""
    let done = await AccountPage.finished {
      accounts.reset(token: token, newPassword: form["password"] ?? "", $0)
    }
    switch done {
    case .success:
      return AccountPage.redirect(
        "/account/signin?reset=1",
        cookies: [WebSession.expiredSessionCookie(secure: site.secureCookies)])
    case .failure(let error):
      let (message, status) = Self.refusal(error)
      return resetForm(request, token: token, error: message, status: status)
    }
  }

  /// The form again with what was refused: 429s say when to retry.
  static func retrying(_ response: Response, _ error: AccountError) -> Response {
    guard case .limited(let limit) = error else { return response }
    var response = response
    response.headers[.retryAfter] = "\(limit.retryAfter)"
    return response
  }

  /// What a refused account operation tells the browser, and its status.
  static func refusal(_ error: AccountError) -> (String, HTTPResponse.Status) {
    switch error {
    case .invalid(_, let reason):
      (reason.prefix(1).uppercased() + reason.dropFirst() + ".", .badRequest)
    case .wrongCredentials: ("Wrong email or password.", .unauthorized)
    case .invalidToken: ("This link is unknown, used or expired: ask for a new one.", .badRequest)
    case .limited(let limit):
      ("Too many attempts: try again in \(limit.retryAfter) seconds.", .tooManyRequests)
    case .busy, .notPersisted: ("The server is busy: try again in a moment.", .serviceUnavailable)
    default: (error.message, .badRequest)
    }
  }
}
