import Hummingbird
import NIOCore

/// Responses with the headers every page carries: a CSP that allows this server's style sheet
/// (by its hash) and images, and nothing else (no script, no request elsewhere, no framing).
enum PageResponse {
  static let contentSecurityPolicy =
    "default-src 'none'; style-src \(PageTemplates.styleHash); img-src 'self'; "
    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

  static func html(_ body: String, status: HTTPResponse.Status) -> Response {
    respond(body, status: status, type: "text/html; charset=utf-8")
  }

  static func text(_ body: String, status: HTTPResponse.Status) -> Response {
    respond(body, status: status, type: "text/plain; charset=utf-8")
  }

  static func vCard(_ body: String, filename: String) -> Response {
    var response = respond(body, status: .ok, type: "text/vcard; charset=utf-8")
    response.headers[.contentDisposition] = "attachment; filename=\"\(filename)\""
    return response
  }

  private static func respond(_ body: String, status: HTTPResponse.Status, type: String)
    -> Response
  {
    let headers: HTTPFields = [
      .contentType: type,
      .contentSecurityPolicy: contentSecurityPolicy,
      .xContentTypeOptions: "nosniff",
      .init("Referrer-Policy")!: "no-referrer",
      // A card changes when its owner edits it: browsers check again each time.
      .cacheControl: "no-cache",
    ]
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
  }
}
