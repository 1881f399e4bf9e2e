import Cards
import SpatialIndex

/// A map query over pins (`PIN.SEARCH`): CARD.SEARCH's shapes, order and cursor, from a point
/// or a pin, filtered by owner.
public struct PinSearch: Sendable {
  public enum Center: Sendable {
    case point(longitude: Double, latitude: Double)
    case pin(Int64)
  }

  public var center: Center?
  public var shape: CardSearch.Shape
  public var count: Int?
  public var descending = false
  /// Only these owners' pins, when given (`FILTER owner <username>`).
  public var owners: Set<Int64>?
  public var after: CardCursor?

  public init(center: Center?, shape: CardSearch.Shape) {
    self.center = center
    self.shape = shape
  }
}

extension Pins {
  /// The pins that answer `query`, in (distance, id) order (descending when asked; bounds: by
  /// id), with where the next page starts. Pins are public: every signed-in account sees them
  /// all (never their photos).
  public func search(_ query: PinSearch) -> Result<(hits: [PinHit], next: CardCursor?), PinError> {
    var center: (longitude: Double, latitude: Double)?
    switch query.center {
    case .point(let lon, let lat):
      guard Self.valid(lon, lat) else { return .failure(Self.badPoint) }
      center = (lon, lat)
    case .pin(let id):
      guard let pin = pin(id) else { return .failure(.notFound) }
      center = (pin.longitude, pin.latitude)
    case nil: break
    }
    let found: Result<[Hit], PinError> = map.searchers.withSearcher { searcher in
      switch (query.shape, center) {
      case (.radius(let r), let c?):
        guard r >= 0, r.isFinite else { return .failure(.badQuery("radius cannot be negative")) }
        return .success(searcher.radius(longitude: c.longitude, latitude: c.latitude, radius: r))
      case (.box(let w, let h), let c?):
        guard w >= 0, h >= 0, w.isFinite, h.isFinite else {
          return .failure(.badQuery("height or width cannot be negative"))
        }
        return .success(
          searcher.rectangle(longitude: c.longitude, latitude: c.latitude, width: w, height: h))
      case (.nearest(let k), let c?):
        return .success(nearest(c, k: k, query, searcher))
      case (.bounds(let box), _):
        return .success(
          searcher.box(box).map {
            Hit(id: $0.id, longitude: $0.longitude, latitude: $0.latitude, distance: 0)
          })
      default:
        return .failure(.badQuery("a search needs FROMLONLAT or FROMPIN"))
      }
    }
    return found.map { page(of: sorted(admitted($0, query)), query) }
  }

  /// The `k` nearest admitted pins: asked of the index for twice as many until enough pass
  /// the owner filter or none are left.
  private func nearest(
    _ c: (longitude: Double, latitude: Double), k: Int, _ query: PinSearch,
    _ searcher: GeoSearcher
  ) -> [Hit] {
    var ask = query.owners == nil ? k : Self.twice(k)
    while true {
      let found = searcher.nearest(longitude: c.longitude, latitude: c.latitude, k: ask)
      let passed = admitted(found, query)
      if passed.count >= k || found.count < ask { return Array(sorted(passed).prefix(k)) }
      ask = Self.twice(ask)
    }
  }

  private static func twice(_ n: Int) -> Int { n > Int.max / 2 ? .max : n * 2 }

  private func admitted(_ hits: [Hit], _ query: PinSearch) -> [Hit] {
    guard let owners = query.owners else { return hits }
    return state.withLock { s in
      hits.filter { s.pins[Int64($0.id)].map { owners.contains($0.ownerId) } ?? false }
    }
  }

  private func sorted(_ hits: [Hit]) -> [Hit] { MapPage.sorted(hits) }

  /// The page the query asks for, from its hits in ascending order, and where the next starts.
  private func page(of hits: [Hit], _ query: PinSearch) -> (hits: [PinHit], next: CardCursor?) {
    let (kept, more) = MapPage.page(
      hits, descending: query.descending, after: query.after, count: query.count)
    let found = map.pinHits(kept)
    guard more, let last = found.last else { return (found, nil) }
    return (found, CardCursor(distance: last.distance, id: last.id))
  }
}
