import CardCommands
import Cards
import Commands
import Pins

/// PIN.SEARCH's arguments: the map query's grammar (`MapSearchArguments`) over pins, from a
/// pin (`FROMPIN`), filtered by owner (`FILTER owner <username>`).
struct PinSearchArguments {
  var query = PinSearch(center: nil, shape: .nearest(1))
  var withDistance = false
  var withCoordinates = false
  var unit = 1.0
  var paged = false

  static let dialect = MapSearchArguments<String>.Dialect(
    from: "frompin", filterError: "FILTER takes owner", allowsNew: false
  ) { args, i in args.is(i + 1, "owner") ? args.string(i + 2) : nil }

  static func parse(_ args: Arguments, pins: Pins) -> Result<PinSearchArguments, CardError> {
    MapSearchArguments.parse(args, dialect).map { parsed in
      var request = PinSearchArguments()
      request.query.center = parsed.center.map { center in
        switch center {
        case .point(let lon, let lat): .point(longitude: lon, latitude: lat)
        case .record(let id): .pin(id)
        }
      }
      request.query.shape = parsed.shape
      request.query.count = parsed.count
      request.query.descending = parsed.descending
      request.query.after = parsed.after
      if !parsed.filters.isEmpty {
        // Every owner filter must hold: one username, or none matches.
        let owners = Set(parsed.filters.map { pins.owner(username: $0) ?? -1 })
        request.query.owners = owners.count == 1 ? owners : []
      }
      request.withDistance = parsed.withDistance
      request.withCoordinates = parsed.withCoordinates
      request.unit = parsed.unit
      request.paged = parsed.paged
      return request
    }
  }
}
