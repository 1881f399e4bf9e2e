import Synchronization

/// A geocoder made on first use: the offline gazetteer takes a third of a second and 80 MB to
/// load, which a server that never geocodes should not pay at start.
public final class LazyGeocoder: Geocoder {
  public let name: String
  private let make: @Sendable () throws -> any Geocoder
  private let made = Mutex<(any Geocoder)?>(nil)

  public init(name: String, _ make: @escaping @Sendable () throws -> any Geocoder) {
    self.name = name
    self.make = make
  }

  /// The geocoder, made now if not yet; a failure to make it is thrown and tried again next time.
  private func geocoder() throws -> any Geocoder {
    try made.withLock { made in
      if let made { return made }
      let geocoder = try make()
      made = geocoder
      return geocoder
    }
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    try await geocoder().search(query)
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try await geocoder().reverse(lon: lon, lat: lat)
  }
}
