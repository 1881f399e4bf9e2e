import Cards
import Foundation
import Hummingbird

/// The map's public reads: what CARD.CLUSTERS and CARD.SEARCH answer, only cards on the map
/// (shown by their owners, active, placed).
extension CardAPI {
  static let defaultNearbyCount = 10
  static let maxNearbyCount = 100
  /// 64 × 64 cells of 64 pixels: a 4096 × 4096-pixel view (512-pixel tiles), at most one
  /// marker a cell.
  static let maxClusterCells = 64 * 64
  /// Half the Earth's circumference: every card is within it.
  static let maxRadius = 20_037_509.0

  /// `GET /v1/cards?bbox=minLon,minLat,maxLon,maxLat&zoom=z[&company=…][&jobTitle=…]…`:
  /// CARD.CLUSTERS's FeatureCollection, with its filters.
  func clusters(_ request: Request) throws(APIError) -> Response {
    let query = request.uri.queryParameters
    let corners = query.get("bbox").map { text in
      text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0)) }
    }
    guard let corners, corners.count == 4, let a = corners[0], let b = corners[1],
      let c = corners[2], let d = corners[3], [a, c].allSatisfy({ abs($0) <= 180 }),
      [b, d].allSatisfy({ abs($0) <= 90 })
    else {
      throw .badRequest(
        "bbox must be minLon,minLat,maxLon,maxLat: longitudes -180 to 180, latitudes -90 to 90")
    }
    // Well formed, but not a view: 422, as what the document's schema cannot say.
    guard
      let box = Cards.viewport(minLongitude: a, minLatitude: b, maxLongitude: c, maxLatitude: d)
    else {
      throw APIError(.unprocessableContent, "ERR bbox's minLat must not be above its maxLat")
    }
    guard let zoom = query.get("zoom").flatMap({ Int($0) }) else {
      throw .badRequest("zoom must be an integer 0 to \(Cards.maxClusterZoom)")
    }
    // A map's view, not the whole map at a street's zoom: one public request must not be able
    // to ask for every card.
    let cells = Cards.clusterCells(in: box, zoom: zoom)
    guard cells <= Self.maxClusterCells else {
      throw APIError(
        .unprocessableContent,
        "ERR bbox too large for zoom \(zoom): \(cells) grid cells, at most \(Self.maxClusterCells) "
          + "(a 4096 × 4096-pixel view)")
    }
    // CARD.CLUSTERS's FILTER <field> <value>, one parameter per field.
    let filters = CardFilter.Field.allCases.compactMap { field in
      query.get(field.rawValue).map { CardFilter(field: field, value: $0) }
    }
    switch cards.clusters(in: box, zoom: zoom, filters: filters) {
    case .success(let markers):
      return APIResponse.json(
        CardGeoJSON.featureCollection(markers), type: "application/geo+json")
    case .failure(let error): throw APIError(error)
    }
  }

  /// `GET /v1/cards/nearby?lon=&lat=&radius=&count=`: CARD.SEARCH FROMLONLAT … BYRADIUS … m
  /// COUNT … ASC WITHDIST WITHCOORD, as a list of summaries with `distance` (metres, to 0.1 mm
  /// as WITHDIST), `longitude` and `latitude`, nearest first.
  func nearby(_ request: Request) throws(APIError) -> Response {
    let query = request.uri.queryParameters
    func number(_ name: String) throws(APIError) -> Double {
      guard let value = query.get(name).flatMap({ Double($0) }), value.isFinite else {
        throw .badRequest("\(name) must be a number")
      }
      return value
    }
    let (lon, lat, radius) = (try number("lon"), try number("lat"), try number("radius"))
    guard (0...Self.maxRadius).contains(radius) else {
      throw .badRequest("radius must be 0 to \(Int(Self.maxRadius)) metres")
    }
    var count = Self.defaultNearbyCount
    if let text = query.get("count") {
      guard let n = Int(text), (1...Self.maxNearbyCount).contains(n) else {
        throw .badRequest("count must be an integer 1 to \(Self.maxNearbyCount)")
      }
      count = n
    }
    var search = CardSearch(center: .point(longitude: lon, latitude: lat), shape: .radius(radius))
    search.count = count
    switch cards.search(search) {
    case .success(let (hits, _)):
      return APIResponse.json(
        CardJSON.data(
          hits.map { hit in
            var object = CardGeoJSON.summary(hit)
            object["distance"] = (hit.distance * 10_000).rounded() / 10_000
            object["longitude"] = hit.longitude
            object["latitude"] = hit.latitude
            return object
          }))
    case .failure(let error): throw APIError(error)
    }
  }
}
