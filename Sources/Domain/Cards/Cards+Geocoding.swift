import DomainSupport
import Foundation
import Geocoding

extension CardAddress {
  /// The address as a geocoder's free-text query ("Städtle 1, 9490 Vaduz, Liechtenstein"), a
  /// two-letter country also as the query's country code. Nil when there is nothing to look up.
  public var geocodeQuery: GeocodeQuery? {
    let town = [postcode, city].compactMap { $0 }.joined(separator: " ")
    let parts = [street, town, region, country].compactMap { $0 }.filter { !$0.isEmpty }
    guard !parts.isEmpty else { return nil }
    let code = country.flatMap { $0.count == 2 && $0.allSatisfy(\.isASCII) ? $0 : nil }
    return GeocodeQuery(parts.joined(separator: ", "), countryCode: code, limit: 1)
  }
}

extension Cards {
  /// Places the card where the geocoder finds its address (`source` geocoded), as `locate` with
  /// the coordinates would. Refused without an address, or when nothing matches it.
  public func locateByAddress(
    owner: Int64, id: Int64, geocoder: any Geocoder, _ done: @escaping Done<Card>
  ) {
    guard let card = cards(of: owner).first(where: { $0.id == id }) else {
      // Another's card answers as `locate` does: not yours, or not there.
      return done(.failure(card("\(id)", viewer: owner) == nil ? .notFound : .noPermission))
    }
    guard let query = card.fields.address?.geocodeQuery else {
      return done(
        .failure(.invalid(CardFieldError(field: "address", reason: "the card has no address"))))
    }
    // Off Swift's cooperative pool, which blocking code elsewhere in the process may hold.
    Task(executorPreference: DispatchTaskExecutor.shared) { [self] in
      let best: Place?
      do {
        best = try await geocoder.search(query).first
      } catch {
        return done(.failure(.geocoding("\(error)")))
      }
      guard let best else { return done(.failure(.addressNotFound)) }
      locate(
        owner: owner, id: id, longitude: best.lon, latitude: best.lat, source: .geocoded, done)
    }
  }
}
