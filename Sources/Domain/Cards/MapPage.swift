import SpatialIndex

/// What every map search shares (cards, pins): hits in (distance, id) order, and the page a
/// query asks for after its cursor.
public enum MapPage {
  public static func key(_ hit: Hit) -> (Double, Int64) { (hit.distance, Int64(hit.id)) }

  public static func sorted(_ hits: [Hit]) -> [Hit] { hits.sorted { key($0) < key($1) } }

  /// From hits in ascending order: reversed when `descending`, from strictly after `after`, at
  /// most `count` of them, and whether more were left.
  public static func page(
    _ hits: [Hit], descending: Bool, after: CardCursor?, count: Int?
  ) -> (hits: [Hit], more: Bool) {
    var hits = hits
    if descending { hits.reverse() }
    if let after {
      let cursor = (after.distance, after.id)
      let start =
        hits.firstIndex { descending ? key($0) < cursor : key($0) > cursor } ?? hits.count
      hits.removeFirst(start)
    }
    guard let count, hits.count > count else { return (hits, false) }
    hits.removeLast(hits.count - count)
    return (hits, true)
  }
}
