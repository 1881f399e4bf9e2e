import Foundation
import Geocoding

/// The HTTP providers, and the usual way to assemble one: client, politeness, cache.
public enum HTTPProvider: String, CaseIterable, Sendable {
  case nominatim, photon, pelias

  public func client(_ configuration: ServiceConfiguration) -> any Geocoder {
    switch self {
    case .nominatim: return NominatimClient(configuration)
    case .photon: return PhotonClient(configuration)
    case .pelias: return PeliasClient(configuration)
    }
  }

  /// The client wrapped in `PoliteGeocoder` (rate in requests per second, nil for the host's
  /// default), in `RelaxingGeocoder` (a structured miss is asked again with fewer parts) and,
  /// given a cache, in `CachingGeocoder`: cached answers take no rate slot.
  public func geocoder(
    _ configuration: ServiceConfiguration, rate: Double? = nil, cache: GeocodeCache? = nil
  ) -> any StructuredGeocoder {
    let relaxing = RelaxingGeocoder(
      PoliteGeocoder(client(configuration), host: configuration.hostKey, rate: rate))
    guard let cache else { return relaxing }
    return CachingGeocoder(
      relaxing, cache: cache, cacheProvider: "\(rawValue)@\(configuration.hostKey)")
  }

  /// "2", "2/s" or "0.5/s": requests per second, > 0.
  public static func parseRate(_ text: String) -> Double? {
    let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
    guard let rate = Double(number), rate.isFinite, rate > 0 else { return nil }
    return rate
  }
}
