import Accounts
import Cards
import ErrorLines
import Hummingbird
import Mustache
import RateLimits

/// The card pages and vCards: each asks `Cards.open` what a share URL shows, as CARD.OPEN
/// does, and counts a view through `CardViews`, as CARD.GET does. Only the rendering is here.
struct CardPages: Sendable {
  let accounts: Accounts
  let cards: Cards
  let views: CardViews
  let library: MustacheLibrary
  let rendered = RenderedPages()

  /// The session cookie a browser may carry to be counted as a signed-in viewer.
  static let sessionCookie = "cardatlas_session"

  func add(to router: Router<PageContext>) {
    router.get("/c/:username") { request, context in
      await page(request, context, context.parameters.get("username") ?? "", nil)
    }
    router.get("/c/:username/card.vcf") { request, context in
      vCard(request, context, context.parameters.get("username") ?? "", nil)
    }
    router.get("/c/:username/:slug") { request, context in
      await page(
        request, context, context.parameters.get("username") ?? "",
        context.parameters.get("slug"))
    }
    router.get("/c/:username/:slug/card.vcf") { request, context in
      vCard(
        request, context, context.parameters.get("username") ?? "",
        context.parameters.get("slug"))
    }
    // Where an inactive card's page sends its visitors (`Cards.createCardURL`).
    router.get("/") { _, _ in
      render(
        "notice", status: .ok,
        [
          "title": "CardAtlas", "heading": "Your business card, shared by a link.",
          "detail": "One card is free, Pro has ten.",
          "link": ["href": "/account/signup", "text": "Create your free card"],
        ])
    }
    // Every other path: the same 404 page (`/c` itself too, which the trie does not send on
    // to `**`).
    router.get("/c") { _, _ in notice(.notFound) }
    router.get("**") { _, _ in notice(.notFound) }
  }

  /// The page of a share URL. Opening it counts as a view, once durable (the page is shown even
  /// if the view could not be stored, as CARD.GET does): a signed-in viewer's by CARD.GET's
  /// rule, an anonymous visitor's by its client (docs/HTTP.md); a HEAD is none.
  func page(_ request: Request, _ context: PageContext, _ username: String, _ slug: String?)
    async -> Response
  {
    let viewer = viewer(request)
    let opened: OpenedCard
    switch open(username, slug, viewer, context) {
    case .failure(let refused): return refused.response
    case .success(let card): opened = card
    }
    guard case .card(let card) = opened else { return notice(opened) }
    if !context.headOnly {
      await views.counted(
        card, by: viewer.map { .account($0) } ?? .visitor(client: Self.client(request, context)))
    }
    let url = cards.url(of: card)
    let html = rendered.html(card, url: url) {
      let model = CardPageModel.context(card, url: url, publicURL: cards.configuration.publicURL)
      return library.render(model, withTemplate: "card") ?? ""
    }
    var styles = [PageTemplates.styleHash]
    if let theme = CardPageModel.theme(card.fields) { styles.append(PageTemplates.hash(theme.css)) }
    return PageResponse.html(
      html, status: .ok,
      contentSecurityPolicy: PageResponse.policy(styles: styles, script: true))
  }

  /// The card as a vCard: 3.0, or 4.0 with `?v=4`. Not a view (the page was).
  func vCard(_ request: Request, _ context: PageContext, _ username: String, _ slug: String?)
    -> Response
  {
    let version: VCardVersion
    switch request.uri.queryParameters.get("v") {
    case nil, "3": version = .v3
    case "4": version = .v4
    default: return PageResponse.text("v must be 3 or 4\n", status: .badRequest)
    }
    let opened: OpenedCard
    switch open(username, slug, viewer(request), context) {
    case .failure(let refused): return refused.response
    case .success(let card): opened = card
    }
    guard case .card(let card) = opened else { return notice(opened) }
    let name = slug.map { "\(username)-\($0)" } ?? username
    return PageResponse.vCard(cards.vCard(card, version: version), filename: name + ".vcf")
  }

  /// What a share URL shows `viewer` (nil: a visitor), counted against the look-ups of its
  /// address (`Cards.open(username:slug:viewer:client:)`); past them, a 429.
  func open(_ username: String, _ slug: String?, _ viewer: Int64?, _ context: PageContext)
    -> Result<OpenedCard, RefusedPage>
  {
    let client = ClientAddress.key(context.remoteAddress?.ipAddress ?? "?")
    switch cards.open(username: username, slug: slug, viewer: viewer, client: client) {
    case .success(let opened): return .success(opened)
    case .failure(let error):
      var response = PageResponse.text(error.message + "\n", status: .tooManyRequests)
      if case .limited(let limit) = error { response.headers[.retryAfter] = "\(limit.retryAfter)" }
      return .failure(RefusedPage(response: response))
    }
  }

  /// The active card a share URL shows, and its share URL, for what is drawn from it (its QR
  /// code, its preview image); else the response the page itself would give: 429, 410 for an
  /// inactive card, 404 for none or a reserved URL's placeholder (no card to draw).
  func activeCard(_ username: String, _ slug: String?, _ request: Request, _ context: PageContext)
    -> Result<(card: Card, url: String), RefusedPage>
  {
    let opened: OpenedCard
    switch open(username, slug, viewer(request), context) {
    case .failure(let refused): return .failure(refused)
    case .success(let card): opened = card
    }
    guard case .card(let card) = opened, let url = cards.url(of: card) else {
      if case .placeholder = opened { return .failure(RefusedPage(response: notice(.notFound))) }
      return .failure(RefusedPage(response: notice(opened)))
    }
    return .success((card, url))
  }

  /// A page not shown, and the response that says why.
  struct RefusedPage: Error {
    let response: Response
  }

  /// The inactive card's page (410), the reserved URL's placeholder (200), or a 404.
  func notice(_ opened: OpenedCard) -> Response {
    let (status, page): (HTTPResponse.Status, [String: Any])
    switch opened {
    case .inactive:
      status = .gone
      page = [
        "title": "Card not active", "heading": OpenedCard.inactiveMessage,
        "link": ["href": cards.createCardURL, "text": "Create your free card"],
      ]
    case .placeholder:
      status = .ok
      page = [
        "title": "Card coming soon", "heading": OpenedCard.placeholderMessage,
        "detail": "Its owner's new card will be here soon.",
      ]
    case .notFound, .card:
      status = .notFound
      page = [
        "title": "Card not found", "heading": "No card here.",
        "detail": "Check the link, or ask its owner for a new one.",
        "link": ["href": cards.createCardURL, "text": "Create your free card"],
      ]
    }
    return render("notice", status: status, page)
  }

  private func render(_ template: String, status: HTTPResponse.Status, _ page: [String: Any])
    -> Response
  {
    PageResponse.html(library.render(page, withTemplate: template) ?? "", status: status)
  }

  /// What tells one anonymous visitor from another: the address the connection came from and
  /// the user agent. Forwarded-for headers are not trusted (any client can send them).
  static func client(_ request: Request, _ context: PageContext) -> String {
    "\(context.remoteAddress?.ipAddress ?? "")\n\(request.headers[.userAgent] ?? "")"
  }

  /// The signed-in account a request comes from: a session token as a Bearer header or in the
  /// session cookie; nil for anyone else (an unknown token too).
  func viewer(_ request: Request) -> Int64? {
    var token: String?
    if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
      token = String(header.dropFirst("bearer ".count))
    } else {
      token = request.cookies[Self.sessionCookie]?.value
    }
    guard let token, case .success(let session) = accounts.resume(token: token) else {
      return nil
    }
    return session.account.id
  }
}
