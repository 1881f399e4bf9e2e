import Foundation
import Geodesy
import SpatialIndex

extension Cards {
  /// The cards on the map that answer `query`, as any signed-in account may see them, in
  /// distance order (ties by id; descending when asked), with where the next page starts.
  public func search(_ query: CardSearch) -> Result<(hits: [CardHit], next: CardCursor?), CardError>
  {
    search(query) { hits, next in (hits: hits.map(CardHit.init), next: next) }
  }

  /// The same search, its hits given to `body` as the map holds them, under its read lock:
  /// what a reply is written from (CARD.SEARCH), each summary copied once.
  public func search<R>(_ query: CardSearch, _ body: ([CardHitView], CardCursor?) -> R)
    -> Result<R, CardError>
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
    let admitted = map.searchers.withSearcher { searcher in
      matches(query, center, searcher)
    }
    return admitted.map { page(of: $0, query, body) }
  }

  /// The hits that answer the query, filters and exclusions applied, in (distance, id) order
  /// (bounds: by id): all of them, or, for a search nearest first, at least enough for the page.
  private func matches(
    _ query: CardSearch, _ center: (longitude: Double, latitude: Double)?, _ searcher: GeoSearcher
  ) -> Result<[Hit], CardError> {
    let filter = CardFilter.indexFilter(query.filters)
    switch (query.shape, center) {
    case (.radius(let r), let c?):
      guard r >= 0, r.isFinite else { return .failure(.badQuery("radius cannot be negative")) }
      // Every hit is needed to page from the farthest, or to return all.
      guard !query.descending, query.count != nil else {
        return .success(
          sorted(
            admitted(
              searcher.radius(
                longitude: c.longitude, latitude: c.latitude, radius: r, filter: filter), query)))
      }
      return .success(
        nearest(c, within: r, total: .max, query: query, filter: filter, searcher))
    case (.box(let w, let h), let c?):
      guard w >= 0, h >= 0, w.isFinite, h.isFinite else {
        return .failure(.badQuery("height or width cannot be negative"))
      }
      let found = searcher.rectangle(
        longitude: c.longitude, latitude: c.latitude, width: w, height: h, filter: filter)
      return .success(sorted(admitted(found, query)))
    case (.nearest(let k), let c?):
      guard k > 0 else { return .failure(.badQuery("NEAREST must be positive")) }
      return .success(
        nearest(c, within: .infinity, total: k, query: query, filter: filter, searcher))
    case (.bounds(let box), _):
      return .success(
        sorted(
          admitted(searcher.box(box, filter: filter), query).map {
            Hit(id: $0.id, longitude: $0.longitude, latitude: $0.latitude, distance: 0)
          }))
    default:
      return .failure(.badQuery("a search needs FROMLONLAT or FROMCARD"))
    }
  }

  /// The first `total` admitted hits nearest first within `within` metres, or at least as many
  /// of them as the page needs. The index is asked for a few more than needed (filters and
  /// exclusions drop some, a cursor skips some), and again for twice as many until enough pass
  /// or none are left: a bounded search, never a scan of the whole map.
  private func nearest(
    _ c: (longitude: Double, latitude: Double), within: Double, total: Int, query: CardSearch,
    filter: Filter, _ searcher: GeoSearcher
  ) -> [Hit] {
    // Past the page, one more tells whether there is a next page.
    let page = query.count.map { $0 == .max ? $0 : $0 + 1 } ?? .max
    let needed = query.descending ? total : min(total, page)
    let dropsSome = !query.filters.isEmpty || !query.excluded.isEmpty || query.after != nil
    var ask = dropsSome ? Self.twice(needed) : needed
    while true {
      let found = searcher.nearest(
        longitude: c.longitude, latitude: c.latitude, k: ask, within: within, filter: filter)
      var passed = admitted(found, query)
      if passed.count >= total {
        passed.removeLast(passed.count - total)
        return passed
      }
      if found.count < ask { return passed }
      let skipped =
        query.after.map { after in
          passed.firstIndex { MapPage.key($0) > (after.distance, after.id) } ?? passed.count
        } ?? 0
      if !query.descending, passed.count - skipped >= needed { return passed }
      ask = Self.twice(ask)
    }
  }

  private static func twice(_ n: Int) -> Int { n > Int.max / 2 ? .max : n * 2 }

  /// The hits the index found that answer the query: not left out, and whose fields match the
  /// filters exactly (the index's attribute bits only narrow the candidates), their cards read
  /// under one lock.
  private func admitted(_ hits: [Hit], _ query: CardSearch) -> [Hit] {
    let kept =
      query.excluded.isEmpty ? hits : hits.filter { !query.excluded.contains(Int64($0.id)) }
    guard !query.filters.isEmpty else { return kept }
    return state.withLock { s in
      kept.filter { hit in query.filters.allSatisfy { $0.matches(Int64(hit.id), in: s.cards) } }
    }
  }

  private func sorted(_ hits: [Hit]) -> [Hit] { MapPage.sorted(hits) }

  /// `body` given the page the query asks for, from its hits in ascending order, and where the
  /// next starts.
  private func page<R>(
    of hits: [Hit], _ query: CardSearch, _ body: ([CardHitView], CardCursor?) -> R
  ) -> R {
    let (kept, more) = MapPage.page(
      hits, descending: query.descending, after: query.after, count: query.count)
    return map.withHits(kept) { found in
      guard more, let last = found.last else { return body(found, nil) }
      return body(found, CardCursor(distance: last.distance, id: last.id))
    }
  }
}
