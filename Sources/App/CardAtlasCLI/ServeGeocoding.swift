import ArgumentParser
import Gazetteer
import GeocodeCommands
import GeocoderClients
import Geocoding
import Server
import Synchronization

extension Serve {
  /// GEOCODE's extension and the geocoder that GEOCODE and CARD.LOCATE ADDRESS share: the
  /// service named, cached in the store; or the offline gazetteer, loaded on first use (which
  /// fails with its reason if the data is missing).
  func geocoding() throws -> (extensions: [ServerExtension], geocoder: any Geocoder) {
    guard let geocoderUrl else {
      guard geocoder == nil || geocoder == "offline" else {
        throw ValidationError("--geocoder \(geocoder!) needs --geocoder-url")
      }
      let gazetteer = LazyGeocoder(name: "geonames") { try Gazetteer() }
      return ([.geocoding { _ in gazetteer }], gazetteer)
    }
    let (provider, rate, email) = (geocoder, geocoderRate, geocoderEmail)
    // Checked now, so that a bad option stops serve before the store opens.
    _ = try GeocoderOptions.service(
      provider, url: geocoderUrl, rate: rate, email: email, timeout: 10, cache: nil)
    // The service's cache lives in the store, so the geocoder is made once the store is open;
    // the cards' commands, made before, reach it through `made`.
    let made = MadeGeocoder()
    let extensions: [ServerExtension] = [
      .geocoding { cache in
        // Cannot fail: the same arguments passed above.
        let service = try! GeocoderOptions.service(
          provider, url: geocoderUrl, rate: rate, email: email, timeout: 10, cache: cache)
        made.geocoder.withLock { $0 = service }
        return service
      }
    ]
    let shared = LazyGeocoder(name: provider ?? "nominatim") {
      guard let service = made.geocoder.withLock({ $0 }) else { throw MadeGeocoder.NotYet() }
      return service
    }
    return (extensions, shared)
  }
}

/// The service geocoder once the geocoding extension has made it.
private final class MadeGeocoder: Sendable {
  struct NotYet: Error, CustomStringConvertible {
    var description: String { "the geocoder is not started yet" }
  }
  let geocoder = Mutex<(any Geocoder)?>(nil)
}
