import Foundation
import Geodesy
import SpatialIndex

extension Cards {
  /// The cards on the map that answer `query`, as any signed-in account may see them, in
  /// distance order (ties by id; descending when asked), with where the next page starts.
  public func search(_ query: CardSearch) -> Result<(hits: [CardHit], next: CardCursor?), CardError>
  {
    var center: (longitude: Double, latitude: Double)?
    switch query.center {
    case .point(let lon, let lat):
      guard lon.isFinite, lat.isFinite, abs(lon) <= 180, abs(lat) <= 85.05112878 else {
        return .failure(.badQuery("invalid longitude,latitude pair \(lon),\(lat)"))
      }
      center = (lon, lat)
    case .card(let id):
      // Only a card on the map can be searched from: anything else would place a hidden card.
      guard let item = ItemID(exactly: id).flatMap(map.index.item(id:)) else {
        return .failure(.notFound)
      }
      center = (item.longitude, item.latitude)
    case nil: break
    }
    let filter = CardFilter.indexFilter(query.filters)
    let searcher = map.index.makeSearcher()
    var found: [Hit]
    switch (query.shape, center) {
    case (.radius(let r), let c?):
      guard r >= 0, r.isFinite else { return .failure(.badQuery("radius cannot be negative")) }
      found = searcher.radius(
        longitude: c.longitude, latitude: c.latitude, radius: r, filter: filter)
    case (.box(let w, let h), let c?):
      guard w >= 0, h >= 0, w.isFinite, h.isFinite else {
        return .failure(.badQuery("height or width cannot be negative"))
      }
      // Candidates within the half-diagonal, then Redis's BYBOX rule: the latitude distance
      // within half the height, the longitude distance (at the card's latitude) within half
      // the width.
      let sphere = map.index.sphere
      found = searcher.radius(
        longitude: c.longitude, latitude: c.latitude, radius: (w * w + h * h).squareRoot() / 2,
        filter: filter
      ).filter { hit in
        sphere.distance(
          longitude: c.longitude, latitude: c.latitude, longitude: c.longitude,
          latitude: hit.latitude) <= h / 2
          && sphere.distance(
            longitude: c.longitude, latitude: hit.latitude, longitude: hit.longitude,
            latitude: hit.latitude) <= w / 2
      }
    case (.nearest(let k), let c?):
      guard k > 0 else { return .failure(.badQuery("NEAREST must be positive")) }
      // Filters and the cursor may drop some of the nearest: ask for more than k.
      found = searcher.nearest(
        longitude: c.longitude, latitude: c.latitude,
        k: query.filters.isEmpty && query.after == nil ? k : .max, filter: filter)
    case (.bounds(let box), _):
      found = searcher.box(box, filter: filter).map {
        Hit(id: $0.id, longitude: $0.longitude, latitude: $0.latitude, distance: 0)
      }
    default:
      return .failure(.badQuery("a search needs FROMLONLAT or FROMCARD"))
    }
    var hits = found.compactMap { hit -> CardHit? in
      guard let card = held(Int64(hit.id)), query.filters.allSatisfy({ $0.matches(card.fields) })
      else { return nil }
      return CardHit(
        card: card, url: url(of: card), longitude: hit.longitude, latitude: hit.latitude,
        distance: hit.distance)
    }
    hits.sort { a, b in
      (a.distance, a.card.id) < (b.distance, b.card.id)
    }
    if case .nearest(let k) = query.shape, hits.count > k { hits.removeLast(hits.count - k) }
    if query.descending { hits.reverse() }
    if let after = query.after {
      hits.removeAll { hit in
        query.descending
          ? (hit.distance, hit.card.id) >= (after.distance, after.id)
          : (hit.distance, hit.card.id) <= (after.distance, after.id)
      }
    }
    guard let count = query.count, hits.count > count else { return .success((hits, nil)) }
    hits.removeLast(hits.count - count)
    let last = hits[hits.count - 1]
    return .success((hits, CardCursor(distance: last.distance, id: last.card.id)))
  }
}
