import Hummingbird
import NIOCore

/// Responses with the headers every page carries: a CSP that allows this server's style sheet
/// (by its hash), images and manifest, and nothing else (no script, no request elsewhere, no
/// framing).
enum PageResponse {
  static let contentSecurityPolicy = policy(styles: [PageTemplates.styleHash], script: false)

  /// The policy of a page with these style sheets (CSP hash sources) and, with `script`, the
  /// scripts this server serves: never an inline one. Forms post to this server only, and only
  /// on the pages that have them (`forms`).
  static func policy(styles: [String], script: Bool, forms: Bool = false) -> String {
    "default-src 'none'; style-src \(styles.joined(separator: " "))"
      + (script ? "; script-src 'self'" : "")
      + "; img-src 'self'; manifest-src 'self'; base-uri 'none'; "
      + "form-action \(forms ? "'self'" : "'none'"); frame-ancestors 'none'"
  }

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
