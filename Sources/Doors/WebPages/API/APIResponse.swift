import Cards
import ErrorLines
import Foundation
import Hummingbird
import NIOCore
import RateLimits

/// Why an API request was refused: its status and the message of its JSON body
/// (`{"error": "..."}`). A domain refusal keeps the domain's message, as the RESP error line.
struct APIError: Error {
  let status: HTTPResponse.Status
  let message: String
  /// A limit's wait, sent as `Retry-After`.
  var retryAfter: Int?

  init(_ status: HTTPResponse.Status, _ message: String) {
    self.status = status
    self.message = message
  }

  init(_ limit: LimitExceeded) {
    self.init(.tooManyRequests, limit.message)
    retryAfter = limit.retryAfter
  }

  init(_ error: CardError) {
    let status: HTTPResponse.Status =
      switch error {
      case .invalid, .badQuery: .badRequest
      case .limit, .noPermission: .forbidden
      case .notFound, .addressNotFound: .notFound
      case .inactive: .gone
      case .ownCard: .conflict
      case .geocoding: .badGateway
      case .notPersisted, .ownerNotCreated, .tryAgain: .serviceUnavailable
      case .limited: .tooManyRequests
      }
    self.init(status, error.message)
    if case .limited(let limit) = error { retryAfter = limit.retryAfter }
  }

  static func badRequest(_ message: String) -> APIError { APIError(.badRequest, "ERR " + message) }

  static let notFound = APIError(CardError.notFound)
}

/// The API's responses: JSON (GeoJSON for the map) that is never sniffed or cached, and errors
/// as `{"error": "..."}`; CORS headers are the middleware's (`APICORS`).
enum APIResponse {
  static func json(
    _ body: Data, status: HTTPResponse.Status = .ok, type: String = "application/json"
  ) -> Response {
    let headers: HTTPFields = [
      .contentType: type, .xContentTypeOptions: "nosniff", .cacheControl: "no-store",
    ]
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
  }

  static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    json(Data(text.utf8), status: status)
  }

  static func noContent() -> Response {
    Response(status: .noContent, headers: [.cacheControl: "no-store"])
  }

  static func error(_ error: APIError) -> Response {
    var response = json(CardJSON.data(["error": error.message]), status: error.status)
    if error.status == .unauthorized {
      response.headers[.wwwAuthenticate] = "Bearer realm=\"CardAtlas\""
    }
    if let wait = error.retryAfter { response.headers[.retryAfter] = "\(wait)" }
    return response
  }

  /// Runs a handler, answering whatever it throws as a JSON error: a body over the limit as
  /// 413, anything unforeseen as 500.
  static func run(_ handler: () async throws -> Response) async -> Response {
    do {
      return try await handler()
    } catch let error as APIError {
      return self.error(error)
    } catch let error as any HTTPResponseError {
      // The router's own: an unknown path under /v1, or a method a path does not take.
      let message =
        error.status == .notFound
        ? "NOTFOUND no such route" : "ERR \(error.status.reasonPhrase.lowercased())"
      return self.error(APIError(error.status, message))
    } catch {
      return self.error(APIError(.internalServerError, "ERR \(error)"))
    }
  }
}
