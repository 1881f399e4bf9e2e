import Accounts
import Cards
import Crypto
import ErrorLines
import Hummingbird
import NIOCore
import QRCodes
import Venues

/// `…/qr.png|svg|jpg` of a card's share URL (`/c/<user>[/<slug>]/qr.*`, what CARD.QR draws,
/// with the page's statuses when there is no card to show) and of a venue's check-in page
/// (`/v/<venue>/qr.*`: `<public-url>/v/<code>`, its owner's only, as VENUE.QR), with `?size=&transparent=1&ecc=`.
struct QRRoutes: Sendable {
  let pages: CardPages
  let venues: Venues

  func add(to router: Router<PageContext>) {
    for (name, format) in [("png", QRFormat.png), ("svg", .svg), ("jpg", .jpeg), ("jpeg", .jpeg)] {
      router.get("/c/:username/qr.\(name)") { request, context in
        await card(request, context, format, context.parameters.get("username") ?? "", nil)
      }
      router.get("/c/:username/:slug/qr.\(name)") { request, context in
        await card(
          request, context, format, context.parameters.get("username") ?? "",
          context.parameters.get("slug"))
      }
      router.get("/v/:venue/qr.\(name)") { request, context in
        await venue(request, format, context.parameters.get("venue") ?? "")
      }
    }
  }

  func card(
    _ request: Request, _ context: PageContext, _ format: QRFormat, _ username: String,
    _ slug: String?
  ) async -> Response {
    let options: QROptions
    switch Self.options(format, { request.uri.queryParameters.get($0) }) {
    case .failure(let problem): return PageResponse.text(problem.text + "\n", status: .badRequest)
    case .success(let parsed): options = parsed
    }
    // What the page would show for an inactive card (410) or none (404); a reserved URL's
    // placeholder has no card to encode (404). Never a code.
    let url: String
    switch pages.activeCard(username, slug, request, context) {
    case .failure(let refused): return refused.response
    case .success(let shown): url = shown.url
    }
    let name = (slug.map { "\(username)-\($0)" } ?? username) + "-qr"
    return await Self.reply(url, options, request, name: name, cache: "public, no-cache")
  }

  func venue(_ request: Request, _ format: QRFormat, _ venueId: String) async -> Response {
    guard let owner = BearerToken.account(request, pages.accounts) else {
      return BearerToken.challenge
    }
    let options: QROptions
    switch Self.options(format, { request.uri.queryParameters.get($0) }) {
    case .failure(let problem): return PageResponse.text(problem.text + "\n", status: .badRequest)
    case .success(let parsed): options = parsed
    }
    guard let id = Int64(venueId) else {
      return PageResponse.text("no such venue\n", status: .notFound)
    }
    switch venues.code(owner: owner, venue: id) {
    case .failure(.noPermission(let why)): return PageResponse.text(why + "\n", status: .forbidden)
    case .failure: return PageResponse.text("no such venue\n", status: .notFound)
    case .success(let code):
      // The code rotates (VENUE.ROTATE): kept by no shared cache, checked again each time.
      return await Self.reply(
        venues.checkInLink(code: code), options, request, name: "venue-\(id)-qr",
        cache: "private, no-cache")
    }
  }

  struct Problem: Error {
    let text: String
  }

  /// `size` (64 to 2048 pixels, default 512), `transparent` (1 or 0) and `ecc` (L, M, Q, H;
  /// default M) from the query's values, judged by `QROptions.checked` as CARD.QR's are.
  static func options(_ format: QRFormat, _ query: (String) -> String?) -> Result<
    QROptions, Problem
  > {
    var size: Int?
    if let text = query("size") {
      guard let n = Int(text) else {
        return .failure(Problem(text: "size must be a whole number of pixels"))
      }
      size = n
    }
    let transparent: Bool
    switch query("transparent") {
    case nil, "0", "false": transparent = false
    case "1", "true": transparent = true
    default: return .failure(Problem(text: "transparent must be 1 or 0"))
    }
    return QROptions.checked(
      format: format, size: size, transparent: transparent, errorCorrection: query("ecc")
    ).mapError { Problem(text: $0.reason) }
  }

  /// The image, drawn off the event loop; or 304 when the client holds it (its ETag names the
  /// text and the options).
  static func reply(
    _ text: String, _ options: QROptions, _ request: Request, name: String, cache: String
  ) async -> Response {
    let tag = etag(text, options)
    var headers: HTTPFields = [
      .eTag: tag, .cacheControl: cache, .xContentTypeOptions: "nosniff",
      .contentSecurityPolicy: "default-src 'none'",
    ]
    if request.headers[.ifNoneMatch] == tag {
      return Response(status: .notModified, headers: headers)
    }
    switch await QRCodes.draw(text, options) {
    case .failure(.failed(let why)):
      return PageResponse.text("QR code not drawn: \(why)\n", status: .internalServerError)
    case .failure(let error): return PageResponse.text(error.reason + "\n", status: .badRequest)
    case .success(let image):
      headers[.contentType] = image.contentType
      let ext = options.format == .jpeg ? "jpg" : options.format.rawValue
      headers[.contentDisposition] = "inline; filename=\"\(name).\(ext)\""
      return Response(
        status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }
  }

  static func etag(_ text: String, _ options: QROptions) -> String {
    let key =
      "\(text)\n\(options.format.rawValue) \(options.size) \(options.transparent) \(options.errorCorrection.rawValue)"
    let digest = SHA256.hash(data: Array(key.utf8))
    let hex = Array("0123456789abcdef")
    return "\"" + String(digest.prefix(16).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] })
      + "\""
  }
}
