import Hummingbird

/// CORS for browser clients of the API (`/v1/…`, `/openapi.json`): any origin may call it, as
/// it takes credentials only as a Bearer header (never cookies); a preflight `OPTIONS` is
/// answered here with the methods and headers allowed. On these paths an unknown path or method
/// (the router's error, or the pages' HTML 404 that `**` answers) is a JSON error with the same
/// headers. Other paths pass untouched.
struct APICORS: RouterMiddleware {
  typealias Context = PageContext

  static let methods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
  static let headers = "Authorization, Content-Type"

  static func applies(to path: String) -> Bool {
    path == "/v1" || path.hasPrefix("/v1/") || path == OpenAPIDocument.path
  }

  func handle(
    _ request: Request, context: PageContext,
    next: (Request, PageContext) async throws -> Response
  ) async throws -> Response {
    guard Self.applies(to: request.uri.path) else { return try await next(request, context) }
    var response: Response
    if request.method == .options {
      response = Response(
        status: .noContent,
        headers: [
          .accessControlAllowMethods: Self.methods, .accessControlAllowHeaders: Self.headers,
          .accessControlMaxAge: "600",
        ])
    } else {
      response = await APIResponse.run { try await next(request, context) }
      if response.status == .notFound,
        response.headers[.contentType]?.hasPrefix("text/html") == true
      {
        response = APIResponse.error(APIError(.notFound, "NOTFOUND no such route"))
      }
    }
    response.headers[.accessControlAllowOrigin] = "*"
    response.headers[.accessControlExposeHeaders] = "Location, WWW-Authenticate"
    return response
  }
}
