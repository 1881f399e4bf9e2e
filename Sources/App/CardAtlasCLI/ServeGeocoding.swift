import ArgumentParser
import Gazetteer
import GeocoderClients
import Geocoding

extension Serve {
  /// How the domain makes the geocoder that GEOCODE, CARD.LOCATE ADDRESS and VENUE.CREATE
  /// share: the service named, cached in the store; or the offline gazetteer, loaded on first
  /// use (which fails with its reason if the data is missing).
  func geocoding() throws -> @Sendable (GeocodeCache) throws -> any Geocoder {
    guard let geocoderUrl else {
      guard geocoder == nil || geocoder == "offline" else {
        throw ValidationError("--geocoder \(geocoder!) needs --geocoder-url")
      }
      return { _ in LazyGeocoder(name: "geonames") { try Gazetteer() } }
    }
    let (provider, rate, email) = (geocoder, geocoderRate, geocoderEmail)
    // Checked now, so that a bad option stops serve before the store opens.
    _ = try GeocoderOptions.service(
      provider, url: geocoderUrl, rate: rate, email: email, timeout: 10, cache: nil)
    return { cache in
      try GeocoderOptions.service(
        provider, url: geocoderUrl, rate: rate, email: email, timeout: 10, cache: cache)
    }
  }
}
