import Hummingbird

/// HEAD on any GET route (RFC 9110 §9.3.2): the router answers it as a GET, and the client gets
/// the status and headers, Content-Length included, without the body. Link checkers, caches and
/// `curl -I` ask this way. It wraps the router, since the router matches a route by method
/// before its middleware runs.
struct HeadRequests<Router: HTTPResponder<PageContext>>: HTTPResponder {
  let router: Router

  func respond(to request: Request, context: PageContext) async throws -> Response {
    guard request.method == .head else {
      return try await router.respond(to: request, context: context)
    }
    var head = request.head
    head.method = .get
    var context = context
    context.headOnly = true
    let response = try await router.respond(
      to: Request(head: head, body: request.body), context: context)
    return Response(status: response.status, headers: response.headers, body: ResponseBody())
  }
}
