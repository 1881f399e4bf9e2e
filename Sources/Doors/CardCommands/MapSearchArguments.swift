import Cards
import Commands
import SpatialIndex

/// The map query's grammar, shared by CARD.SEARCH and PIN.SEARCH (`protocol.md`, fixed):
///
///     (FROMLONLAT <lon> <lat> | FROM<RECORD> <id>)
///     (BYRADIUS <r> <unit> | BYBOX <w> <h> <unit> | NEAREST <k>)
///     [COUNT <n>] [ASC|DESC] [WITHDIST] [WITHCOORD] [FILTER <field> <value>]... [NEW]
///     [CURSOR <c>]
///     BOUNDS <minlon> <minlat> <maxlon> <maxlat> [COUNT <n>] [FILTER ...] [NEW]
///
/// Each search names its record (`FROMCARD`, `FROMPIN`), its filters, and whether it has NEW.
public struct MapSearchArguments<Filter>: Sendable where Filter: Sendable {
  public enum Center: Sendable {
    case point(longitude: Double, latitude: Double)
    /// FROM<RECORD> <id>: from that record's place.
    case record(Int64)
  }

  /// What differs between the searches sharing the grammar.
  public struct Dialect: Sendable {
    /// `fromcard`, `frompin`.
    public let from: StaticString
    /// `FILTER <field> <value>` at argument `i`, or nil for an unknown field.
    public let filter: @Sendable (Arguments, Int) -> Filter?
    /// The error for an unknown field: which fields there are.
    public let filterError: String
    public let allowsNew: Bool

    public init(
      from: StaticString, filterError: String, allowsNew: Bool,
      filter: @escaping @Sendable (Arguments, Int) -> Filter?
    ) {
      self.from = from
      self.filter = filter
      self.filterError = filterError
      self.allowsNew = allowsNew
    }
  }

  public var center: Center?
  public var shape: CardSearch.Shape = .nearest(1)
  public var count: Int?
  public var descending = false
  public var filters: [Filter] = []
  public var after: CardCursor?
  public var withDistance = false
  public var withCoordinates = false
  /// Metres per unit of the reply's distances.
  public var unit = 1.0
  /// CURSOR given: the reply is [next, hits].
  public var paged = false
  /// NEW: leave out what the caller has already seen.
  public var new = false

  /// Reads the arguments in place (`withView`): a search's keywords are each compared with
  /// several words, and reaching a received argument's bytes one by one cost more than the
  /// comparisons (CARD.SEARCH's parsing took over three times GEOSEARCH's).
  public static func parse(_ args: Arguments, _ dialect: Dialect) -> Result<Self, CardError> {
    args.withView { parse($0, filtered: args, dialect) }
  }

  /// `args` read through `view`; a FILTER's field and value through `filtered` (the dialect's).
  private static func parse(
    _ args: ArgumentView, filtered: Arguments, _ dialect: Dialect
  ) -> Result<Self, CardError> {
    var request = Self()
    var shape: CardSearch.Shape?
    var i = 1
    func syntax() -> Result<Self, CardError> { .failure(.badQuery("syntax error")) }
    func float(_ j: Int) -> Double? { j < args.count ? args.double(j) : nil }
    while i < args.count {
      let left = args.count - i - 1
      if args.is(i, "fromlonlat"), left >= 2, request.center == nil {
        guard let lon = float(i + 1), let lat = float(i + 2) else { return notFloat }
        request.center = .point(longitude: lon, latitude: lat)
        i += 3
      } else if args.is(i, dialect.from), left >= 1, request.center == nil {
        guard let id = args.integer(i + 1) else { return .failure(.notFound) }
        request.center = .record(Int64(id))
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
      } else if args.is(i, "bounds"), left >= 4, shape == nil, request.center == nil {
        guard let box = args.bounds(from: i + 1) else {
          return .failure(.badQuery("invalid bounds"))
        }
        shape = .bounds(box)
        i += 5
      } else if args.is(i, "count"), left >= 1 {
        guard let n = args.saturatingInteger(i + 1), n > 0 else {
          return .failure(.badQuery("COUNT must be > 0"))
        }
        request.count = n
        i += 2
      } else if args.is(i, "asc") {
        request.descending = false
        i += 1
      } else if args.is(i, "desc") {
        request.descending = true
        i += 1
      } else if args.is(i, "withdist") {
        request.withDistance = true
        i += 1
      } else if args.is(i, "withcoord") {
        request.withCoordinates = true
        i += 1
      } else if args.is(i, "filter"), left >= 2 {
        guard let filter = dialect.filter(filtered, i) else {
          return .failure(.badQuery(dialect.filterError))
        }
        request.filters.append(filter)
        i += 3
      } else if dialect.allowsNew, args.is(i, "new") {
        request.new = true
        i += 1
      } else if args.is(i, "cursor"), left >= 1 {
        let text = args.string(i + 1)
        if text != "0" {
          guard let cursor = CardCursor(text: text) else {
            return .failure(.badQuery("invalid cursor"))
          }
          request.after = cursor
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
    } else if request.center == nil {
      return .failure(
        .badQuery(
          "exactly one of FROMLONLAT or \(dialect.from.description.uppercased()) is required"))
    }
    request.shape = shape
    return .success(request)
  }

  private static var notFloat: Result<Self, CardError> {
    .failure(.badQuery("value is not a valid float"))
  }
  private static var unitError: String { "unsupported unit provided. please use M, KM, FT, MI" }
}

extension ArgumentReading {
  /// `<minlon> <minlat> <maxlon> <maxlat>` from argument `i`: a viewport, which may cross the
  /// antimeridian (min longitude east of max).
  public func bounds(from i: Int) -> GeoBox? {
    guard i + 3 < count, let a = double(i), let b = double(i + 1), let c = double(i + 2),
      let d = double(i + 3)
    else { return nil }
    return Cards.viewport(minLongitude: a, minLatitude: b, maxLongitude: c, maxLatitude: d)
  }
}
