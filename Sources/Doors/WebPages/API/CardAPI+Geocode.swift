import Foundation
import Geocoding
import Hummingbird
import RateLimits

/// The map's search box: GEOCODE over HTTP, for anyone (the map needs no account). Each
/// address asks at most `geocodesPerMinute` a minute, so that the map cannot be used to spend
/// an HTTP geocoder's own rate for everyone.
extension CardAPI {
  static let geocodesPerMinute = 30
  static let defaultGeocodeCount = 5
  /// A search box's text, in characters: any 250 fit GEOCODE's 1,000 bytes.
  static let maxGeocodeText = 250

  /// `GET /v1/geocode?q=<text>[&count=n]`: the places GEOCODE finds, best first.
  func geocode(_ request: Request, client: String) async throws(APIError) -> Response {
    let parameters = request.uri.queryParameters
    guard let text = parameters.get("q"), !text.isEmpty,
      text.unicodeScalars.count <= Self.maxGeocodeText
    else { throw .badRequest("q must be 1 to \(Self.maxGeocodeText) characters") }
    var query = GeocodeQuery(String(text))
    query.limit = Self.defaultGeocodeCount
    if let count = parameters.get("count") {
      guard let n = Int(count), (1...GeocodeQuery.maximumLimit).contains(n) else {
        throw .badRequest("count must be an integer 1 to \(GeocodeQuery.maximumLimit)")
      }
      query.limit = n
    }
    do {
      query = try query.validated()
    } catch .emptyQuery {
      // Only spaces: nothing to look for, so nothing found.
      return APIResponse.json("[]")
    } catch {
      throw .badRequest("\(error)")
    }
    guard let geocoder = cards.configuration.geocoder else {
      throw APIError(.serviceUnavailable, "ERR no geocoder is configured")
    }
    if let wait = geocodes.take(["address:" + client]) {
      throw APIError(
        LimitExceeded(
          "at most \(Self.geocodesPerMinute) searches a minute from your address", retryAfter: wait)
      )
    }
    let places: [Place]
    do {
      places = try await geocoder.search(query)
    } catch {
      throw APIError(.badGateway, "GEOCODER \(error)")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return APIResponse.json((try? encoder.encode(places)) ?? Data("[]".utf8))
  }
}
