import Hummingbird

/// 405 with `Allow` (RFC 9110 §15.5.6) when a path is routed but not for the request's method:
/// `TRACE /v1/cards`, `POST /c/<user>`. The router answers both an unknown path and an unknown
/// method with its 404, running its middleware either way but naming a route
/// (`context.endpointPath`) only when it found one; so here, with no route named, the path is
/// matched against the route table as the router's trie does, a literal segment before a
/// parameter. The pages' catch-all `**` (their HTML 404) does not count as a route.
struct MethodNotAllowed: RouterMiddleware {
  typealias Context = PageContext

  /// Each routed path with its methods.
  let routes: [(path: RouterPath, methods: Set<HTTPRequest.Method>)]

  init(routes: [Router<PageContext>.RouteDescription]) {
    var methods: [String: (RouterPath, Set<HTTPRequest.Method>)] = [:]
    for route in routes where route.path.components.first?.description != "**" {
      methods[route.path.description, default: (route.path, [])].1.insert(route.method)
    }
    self.routes = methods.values.map { (path: $0.0, methods: $0.1) }
  }

  func handle(
    _ request: Request, context: PageContext,
    next: (Request, PageContext) async throws -> Response
  ) async throws -> Response {
    guard context.endpointPath == nil, request.method != .options,
      let methods = allowed(request.uri.path)
    else { return try await next(request, context) }
    var allow = methods.map(\.rawValue)
    if methods.contains(.get) { allow.append("HEAD") }
    if APICORS.applies(to: request.uri.path) { allow.append("OPTIONS") }
    var response =
      APICORS.applies(to: request.uri.path)
      ? APIResponse.error(APIError(.methodNotAllowed, "ERR method not allowed"))
      : PageResponse.text("method not allowed\n", status: .methodNotAllowed)
    response.headers[.allow] = allow.sorted().joined(separator: ", ")
    return response
  }

  /// The methods of the route the router's trie resolves the path to, if any.
  func allowed(_ path: String) -> Set<HTTPRequest.Method>? {
    let segments = path.split(separator: "/", omittingEmptySubsequences: true)
    var best: (rank: [Int], methods: Set<HTTPRequest.Method>)?
    for route in routes {
      guard let rank = Self.rank(route.path, segments) else { continue }
      if let current = best, !current.rank.lexicographicallyPrecedes(rank) { continue }
      best = (rank, route.methods)
    }
    return best?.methods
  }

  /// How closely the route matches, segment by segment (2 literal, 1 parameter or wildcard,
  /// 0 the rest of the path), or nil when it does not.
  static func rank(_ route: RouterPath, _ segments: [Substring]) -> [Int]? {
    var rank: [Int] = []
    for (index, element) in route.components.enumerated() {
      if element.description == "**" { return rank + [0] }
      guard index < segments.count, element ~= segments[index] else { return nil }
      rank.append(element == segments[index] ? 2 : 1)
    }
    return route.components.count == segments.count ? rank : nil
  }
}
