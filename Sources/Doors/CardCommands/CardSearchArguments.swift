import Cards
import Commands
import SpatialIndex

/// CARD.SEARCH's arguments: the map query's grammar (`MapSearchArguments`) over cards, from a
/// card (`FROMCARD`), filtered by company, jobTitle, specialty or city, with `NEW`.
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

  static let dialect = MapSearchArguments<CardFilter>.Dialect(
    from: "fromcard", filterError: "FILTER takes company, jobTitle, specialty or city",
    allowsNew: true, filter: filter)

  static func parse(_ args: Arguments) -> Result<CardSearchArguments, CardError> {
    MapSearchArguments.parse(args, dialect).map { parsed in
      var request = CardSearchArguments()
      request.query.center = parsed.center.map { center in
        switch center {
        case .point(let lon, let lat): .point(longitude: lon, latitude: lat)
        case .record(let id): .card(id)
        }
      }
      request.query.shape = parsed.shape
      request.query.count = parsed.count
      request.query.descending = parsed.descending
      request.query.filters = parsed.filters
      request.query.after = parsed.after
      request.withDistance = parsed.withDistance
      request.withCoordinates = parsed.withCoordinates
      request.unit = parsed.unit
      request.paged = parsed.paged
      request.new = parsed.new
      return request
    }
  }

  /// `FILTER <field> <value>` at argument `i`.
  @Sendable static func filter(_ args: Arguments, _ i: Int) -> CardFilter? {
    CardFilter.Field.allCases.first { $0.rawValue.lowercased() == args.lowercased(i + 1) }
      .map { CardFilter(field: $0, value: args.string(i + 2)) }
  }
}
