import Cards
import Commands
import SpatialIndex

/// CARD.SEARCH's grammar (`protocol.md`, fixed):
///
///     CARD.SEARCH (FROMLONLAT <lon> <lat> | FROMCARD <id>)
///                 (BYRADIUS <r> <unit> | BYBOX <w> <h> <unit> | NEAREST <k>)
///                 [COUNT <n>] [ASC|DESC] [WITHDIST] [WITHCOORD]
///                 [FILTER <field> <value>]... [NEW] [CURSOR <c>]
///     CARD.SEARCH BOUNDS <minlon> <minlat> <maxlon> <maxlat> [COUNT <n>] [FILTER ...] [NEW]
struct CardSearchArguments {
  var query = CardSearch(center: nil, shape: .nearest(1))
  var withDistance = false
  var withCoordinates = false
  /// Metres per unit of the reply's distances.
  var unit = 1.0
  /// CURSOR given: the reply is [next, hits].
  var paged = false
  /// NEW: leave out the caller's own cards and those in its wallet.
  var new = false

  static func parse(_ args: Arguments) -> Result<CardSearchArguments, CardError> {
    var request = CardSearchArguments()
    var center: CardSearch.Center?
    var shape: CardSearch.Shape?
    var i = 1
    func syntax() -> Result<CardSearchArguments, CardError> { .failure(.badQuery("syntax error")) }
    func float(_ j: Int) -> Double? { j < args.count ? args.double(j) : nil }
    while i < args.count {
      let left = args.count - i - 1
      if args.is(i, "fromlonlat"), left >= 2, center == nil {
        guard let lon = float(i + 1), let lat = float(i + 2) else { return notFloat }
        center = .point(longitude: lon, latitude: lat)
        i += 3
      } else if args.is(i, "fromcard"), left >= 1, center == nil {
        guard let id = args.integer(i + 1) else { return .failure(.notFound) }
        center = .card(Int64(id))
        i += 2
      } else if args.is(i, "byradius"), left >= 2, shape == nil {
        guard let r = float(i + 1) else { return notFloat }
        guard let unit = args.unit(i + 2) else { return .failure(.badQuery(unitError)) }
        shape = .radius(r * unit)
        request.unit = unit
        i += 3
      } else if args.is(i, "bybox"), left >= 3, shape == nil {
        guard let w = float(i + 1), let h = float(i + 2) else { return notFloat }
        guard let unit = args.unit(i + 3) else { return .failure(.badQuery(unitError)) }
        shape = .box(width: w * unit, height: h * unit)
        request.unit = unit
        i += 4
      } else if args.is(i, "nearest"), left >= 1, shape == nil {
        guard let k = args.saturatingInteger(i + 1), k > 0 else {
          return .failure(.badQuery("NEAREST must be a positive integer"))
        }
        shape = .nearest(k)
        i += 2
      } else if args.is(i, "bounds"), left >= 4, shape == nil, center == nil {
        guard let box = bounds(args, from: i + 1) else {
          return .failure(.badQuery("invalid bounds"))
        }
        shape = .bounds(box)
        i += 5
      } else if args.is(i, "count"), left >= 1 {
        guard let n = args.saturatingInteger(i + 1), n > 0 else {
          return .failure(.badQuery("COUNT must be > 0"))
        }
        request.query.count = n
        i += 2
      } else if args.is(i, "asc") {
        request.query.descending = false
        i += 1
      } else if args.is(i, "desc") {
        request.query.descending = true
        i += 1
      } else if args.is(i, "withdist") {
        request.withDistance = true
        i += 1
      } else if args.is(i, "withcoord") {
        request.withCoordinates = true
        i += 1
      } else if args.is(i, "filter"), left >= 2 {
        guard let filter = filter(args, i) else {
          return .failure(.badQuery("FILTER takes company, jobTitle, specialty or city"))
        }
        request.query.filters.append(filter)
        i += 3
      } else if args.is(i, "new") {
        request.new = true
        i += 1
      } else if args.is(i, "cursor"), left >= 1 {
        let text = args.string(i + 1)
        if text != "0" {
          guard let cursor = CardCursor(text: text) else {
            return .failure(.badQuery("invalid cursor"))
          }
          request.query.after = cursor
        }
        request.paged = true
        i += 2
      } else {
        return syntax()
      }
    }
    guard let shape else {
      return .failure(.badQuery("exactly one of BYRADIUS, BYBOX, NEAREST or BOUNDS is required"))
    }
    if case .bounds = shape {
      if request.withDistance { return .failure(.badQuery("WITHDIST needs a centre")) }
    } else if center == nil {
      return .failure(.badQuery("exactly one of FROMLONLAT or FROMCARD is required"))
    }
    request.query.center = center
    request.query.shape = shape
    return .success(request)
  }

  /// `<minlon> <minlat> <maxlon> <maxlat>` from argument `i`: a viewport, which may cross the
  /// antimeridian (min longitude east of max).
  static func bounds(_ args: Arguments, from i: Int) -> GeoBox? {
    guard i + 3 < args.count, let a = args.double(i), let b = args.double(i + 1),
      let c = args.double(i + 2), let d = args.double(i + 3),
      [a, c].allSatisfy({ abs($0) <= 180 }), [b, d].allSatisfy({ abs($0) <= 90 }), b <= d
    else { return nil }
    return GeoBox(minLongitude: a, minLatitude: b, maxLongitude: c, maxLatitude: d)
  }

  /// `FILTER <field> <value>` at argument `i`.
  static func filter(_ args: Arguments, _ i: Int) -> CardFilter? {
    CardFilter.Field.allCases.first { $0.rawValue.lowercased() == args.lowercased(i + 1) }
      .map { CardFilter(field: $0, value: args.string(i + 2)) }
  }

  private static let notFloat = Result<CardSearchArguments, CardError>.failure(
    .badQuery("value is not a valid float"))
  private static let unitError = "unsupported unit provided. please use M, KM, FT, MI"
}
