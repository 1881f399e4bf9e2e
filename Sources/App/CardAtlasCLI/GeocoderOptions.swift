import ArgumentParser
import Foundation
import Gazetteer
import GeocoderClients
import Geocoding
import SQLiteDomainStorage

/// Which geocoder a command uses: the offline gazetteer unless a service URL is given.
struct GeocoderOptions: ParsableArguments {
  @Option(help: "offline, nominatim, photon or pelias (default: offline, or nominatim with a URL).")
  var geocoder: String?
  @Option(help: "The geocoder service's base URL, e.g. http://127.0.0.1:8088.")
  var geocoderUrl: String?
  @Option(
    help: "Requests per second to the service, e.g. 2 or 2/s (default: 1, or 50 on this machine).")
  var rate: String?
  @Option(help: "Nominatim's email parameter: whom its operators may contact.") var email: String?
  @Option(help: "Seconds to wait for the service's answer.") var timeout: Double = 10
  @Option(help: "The cache of service answers (default: <data>/geocode-cache.sqlite).")
  var cache: String?
  @Option(help: "Data directory, for the cache.") var data = "./var"
  @Flag(help: "Ask the service every time.") var noCache = false

  func validate() throws {
    if let geocoder, geocoder != "offline", HTTPProvider(rawValue: geocoder) == nil {
      throw ValidationError("--geocoder is offline, nominatim, photon or pelias, not \(geocoder)")
    }
    if geocoder == "offline", geocoderUrl != nil {
      throw ValidationError("--geocoder-url needs --geocoder nominatim, photon or pelias")
    }
    if let geocoder, geocoder != "offline", geocoderUrl == nil {
      throw ValidationError("--geocoder \(geocoder) needs --geocoder-url")
    }
    if let rate, HTTPProvider.parseRate(rate) == nil {
      throw ValidationError("--rate is a number of requests per second above 0, e.g. 2/s")
    }
    guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be above 0") }
  }

  func makeGeocoder() throws -> any Geocoder {
    guard let geocoderUrl else { return try Gazetteer() }
    var cacheStore: GeocodeCache?
    if !noCache {
      let path = cache ?? (data as NSString).appendingPathComponent("geocode-cache.sqlite")
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      cacheStore = GeocodeCache(try SQLiteGeocodeCacheFile(path: path))
    }
    return try Self.service(
      geocoder, url: geocoderUrl, rate: rate, email: email, timeout: timeout, cache: cacheStore)
  }

  /// The HTTP geocoder `provider` (default nominatim) at `url`, polite and, given one, cached.
  static func service(
    _ provider: String?, url text: String, rate: String?, email: String?, timeout: Double,
    cache: GeocodeCache?
  ) throws -> any Geocoder {
    guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https",
      url.host != nil
    else { throw ValidationError("--geocoder-url is not an http(s) URL: \(text)") }
    guard let kind = HTTPProvider(rawValue: provider ?? "nominatim") else {
      throw ValidationError("--geocoder is offline, nominatim, photon or pelias")
    }
    let configuration = ServiceConfiguration(
      baseURL: url, email: email, timeout: .milliseconds(Int(timeout * 1000)))
    return kind.geocoder(configuration, rate: rate.flatMap(HTTPProvider.parseRate), cache: cache)
  }
}
