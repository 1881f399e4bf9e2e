/// A forward and reverse geocoder: the offline gazetteer, or a client of an HTTP service
/// (Nominatim, Photon, Pelias). Implementations normalize their answers into `Place`s.
public protocol Geocoder: Sendable {
  /// The provider's name, as `Place.provider` carries it ("geonames", "nominatim", ...).
  var name: String { get }

  /// Candidates for a free-text address, best first, at most `query.limit` of them; empty when
  /// nothing matches. Throws `GeocodeError` for a query that fails `GeocodeQuery.validated()`,
  /// and whatever its transport throws for a service that fails.
  func search(_ query: GeocodeQuery) async throws -> [Place]

  /// The place at or nearest to a point, or nil when there is none near enough. Throws
  /// `GeocodeError.badCoordinate` for a NaN or out-of-range coordinate.
  func reverse(lon: Double, lat: Double) async throws -> Place?
}

/// A geocoder that keeps answers (a cache) and gives those it holds without a request: an
/// import takes a chunk's at once and asks only for the rest.
public protocol KeepsAnswers: Geocoder {
  /// Each query's kept answer, as `search` would give it; nil when none is kept (or the query
  /// is invalid: `search` says why).
  func keptAnswers(_ queries: [GeocodeQuery]) async -> [[Place]?]
}
