import Gazetteer
import Geocoding
import Synchronization

/// The offline gazetteer, loaded by the first GEOCODE rather than at `serve`'s start: it takes
/// seconds and about 100 MB, which a server that never geocodes should not pay.
final class LazyGazetteer: Geocoder {
  let name = "geonames"
  private let loaded = Mutex<Result<Gazetteer, any Error>?>(nil)

  private func gazetteer() throws -> Gazetteer {
    try loaded.withLock { loaded in
      if let loaded { return try loaded.get() }
      let result = Result { try Gazetteer() }
      loaded = result
      return try result.get()
    }
  }

  func search(_ query: GeocodeQuery) async throws -> [Place] {
    try await gazetteer().search(query)
  }

  func reverse(lon: Double, lat: Double) async throws -> Place? {
    try await gazetteer().reverse(lon: lon, lat: lat)
  }
}
