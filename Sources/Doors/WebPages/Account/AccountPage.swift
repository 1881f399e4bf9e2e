import Foundation
import Hummingbird
import Mustache

/// What the account pages are drawn with: the templates, and whether cookies are `Secure`.
struct AccountSite: Sendable {
  let library: MustacheLibrary
  /// Always, but for a server whose public URL is plain HTTP on a loopback address (a
  /// developer's machine, where browsers refuse `Secure` cookies over HTTP but on `localhost`).
  let secureCookies: Bool

  init(library: MustacheLibrary, publicURL: String) {
    self.library = library
    let url = URL(string: publicURL)
    let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url?.host ?? "")
    secureCookies = !(url?.scheme == "http" && loopback)
  }
}

/// What the account pages share: rendering with the forms' style sheet and policy, redirects,
/// the CSRF token of the request's cookies, and the domain's callbacks awaited.
struct AccountPage {
  /// A form page (`AccountTemplates.form`).
  struct Form {
    var title: String
    var heading: String
    var action: String
    var submit: String
    var intro: String? = nil
    var done: String? = nil
    var error: String? = nil
    var multipart = false
    var fields: [Field] = []
    var hidden: [String: String] = [:]
    /// Links under the form: text before, the link's target and text.
    var links: [(before: String, href: String, text: String)] = []
  }

  struct Field {
    enum Kind {
      case input(type: String)
      case textarea
      case checkbox(checked: Bool)
    }
    let label: String
    let name: String
    var kind: Kind = .input(type: "text")
    var value: String? = nil
    var autocomplete: String? = nil
    var required = false
    var maxLength: Int? = nil
    var accept: String? = nil
  }

  /// The policy of every account page: the pages' style sheet and the forms', no script,
  /// forms posting here only.
  static let policy = PageResponse.policy(
    styles: [PageTemplates.styleHash, AccountTemplates.styleHash], script: false, forms: true)

  /// A page of `template`, with the CSRF token of the request's cookies (and the cookie
  /// that sets the form value, the first time). Never cached: it holds the account's data.
  static func render(
    _ site: AccountSite, _ template: String, _ model: [String: Any],
    request: Request, status: HTTPResponse.Status = .ok
  ) -> Response {
    let (value, cookie) = WebSession.formValue(request, secure: site.secureCookies)
    var model = model
    model["csrf"] = WebSession.csrfToken(
      formValue: value, session: request.cookies[WebSession.cookie]?.value)
    var response = PageResponse.html(
      site.library.render(model, withTemplate: template) ?? "", status: status)
    response.headers[.contentSecurityPolicy] = policy
    response.headers[.init("Referrer-Policy")!] = AccountTemplates.referrerPolicy
    response.headers[.cacheControl] = "no-store"
    if let cookie { response.setCookie(cookie) }
    return response
  }

  static func render(
    _ site: AccountSite, _ form: Form, request: Request, signedIn: Bool,
    status: HTTPResponse.Status = .ok
  ) -> Response {
    var model: [String: Any] = [
      "title": form.title, "heading": form.heading, "action": form.action,
      "submit": form.submit, "multipart": form.multipart, "signedIn": signedIn,
      "hidden": form.hidden.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
      "links": form.links.map { ["before": $0.before, "href": $0.href, "text": $0.text] },
      "fields": form.fields.map(model),
    ]
    model["intro"] = form.intro
    model["done"] = form.done
    model["error"] = form.error
    return render(site, "account-form", model, request: request, status: status)
  }

  private static func model(_ field: Field) -> [String: Any] {
    var model: [String: Any] = ["label": field.label, "name": field.name]
    model["value"] = field.value ?? ""
    switch field.kind {
    case .input(let type):
      var input: [String: Any] = ["type": type]
      input["autocomplete"] = field.autocomplete
      input["accept"] = field.accept
      input["required"] = field.required
      input["maxLength"] = field.maxLength
      model["input"] = input
    case .textarea: model["textarea"] = true
    case .checkbox(let checked): model["checkbox"] = ["checked": checked]
    }
    if case .textarea = field.kind { model["maxLength"] = field.maxLength ?? 4_000 }
    return model
  }

  /// 303 to `path`, setting `cookies`.
  static func redirect(_ path: String, cookies: [Cookie] = []) -> Response {
    var response = Response(
      status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
    for cookie in cookies { response.setCookie(cookie) }
    return response
  }

  /// A POST that is not a form of ours, or not from this origin: nothing done.
  static func refused(_ site: AccountSite, _ message: String, status: HTTPResponse.Status)
    -> Response
  {
    var response = PageResponse.html(
      site.library.render(
        ["title": "Not sent", "heading": "The form was not sent.", "detail": message],
        withTemplate: "notice") ?? "", status: status)
    response.headers[.cacheControl] = "no-store"
    return response
  }

  static let staleForm =
    "It came from another site, or the page was too old. Go back, reload the page and try again."

  /// The domain's answer to `start`.
  static func finished<T: Sendable, E: Error>(
    _ start: (@escaping @Sendable (Result<T, E>) -> Void) -> Void
  ) async -> Result<T, E> {
    await withCheckedContinuation { continuation in
      start { continuation.resume(returning: $0) }
    }
  }
}
