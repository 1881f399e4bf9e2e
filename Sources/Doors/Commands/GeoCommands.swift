import Geodesy
import Keyspace
import NIOCore
import RESP

/// Redis 7.0's GEO commands (`src/geo.c`): the same arguments, checks in the same order, the
/// same replies and error texts. The searching itself is `SortedSet.search`.
enum GeoCommands {
  static let all: [CommandSpec] = [
    CommandSpec("geoadd", arity: -5, flags: .write, run: geoadd),
    CommandSpec("geosearch", arity: -7) { search(&$0, source: 1, [.geosearch]) },
    CommandSpec("geosearchstore", arity: -8, flags: .write) {
      search(&$0, source: 2, [.geosearch, .geosearchStore])
    },
    CommandSpec("georadius", arity: -6, flags: .write) { search(&$0, source: 1, [.coordinates]) },
    CommandSpec("georadius_ro", arity: -6) {
      search(&$0, source: 1, [.coordinates, .noStore])
    },
    CommandSpec("georadiusbymember", arity: -5, flags: .write) {
      search(&$0, source: 1, [.member])
    },
    CommandSpec("georadiusbymember_ro", arity: -5) {
      search(&$0, source: 1, [.member, .noStore])
    },
    CommandSpec("geodist", arity: -4, run: geodist),
    CommandSpec("geopos", arity: -2, run: geopos),
    CommandSpec("geohash", arity: -2, run: geohash),
  ]

  /// The unit's metres, or nil (`extractUnitOrReply`).
  static func unit(_ args: some ArgumentReading, _ i: Int) -> Double? {
    if args.is(i, "m") { return 1 }
    if args.is(i, "km") { return 1000 }
    if args.is(i, "ft") { return 0.3048 }
    if args.is(i, "mi") { return 1609.34 }
    return nil
  }

  static let unitError = "ERR unsupported unit provided. please use M, KM, FT, MI"

  /// `extractLongLatOrReply`: a longitude and latitude Redis can store.
  static func coordinate(_ args: some ArgumentReading, _ i: Int) -> Result<
    Coordinate, RedisReplyError
  > {
    guard let longitude = args.double(i), let latitude = args.double(i + 1) else {
      return .failure(RedisReplyError(RedisError.notFloat))
    }
    guard RedisGeohash.isValid(longitude: longitude, latitude: latitude) else {
      return .failure(
        RedisReplyError(
          "ERR invalid longitude,latitude pair \(cFormat("%f", longitude)),\(cFormat("%f", latitude))"
        ))
    }
    return .success(Coordinate(longitude: longitude, latitude: latitude))
  }

  /// `extractDistanceOrReply`: a radius and its unit.
  static func distance(_ args: some ArgumentReading, _ i: Int) -> Result<
    (Double, Double), RedisReplyError
  > {
    guard let radius = args.double(i) else {
      return .failure(RedisReplyError("ERR need numeric radius"))
    }
    guard radius >= 0 else { return .failure(RedisReplyError("ERR radius cannot be negative")) }
    guard let conversion = unit(args, i + 1) else { return .failure(RedisReplyError(unitError)) }
    return .success((radius, conversion))
  }

  /// The sorted set at `key`, nil when missing, or WRONGTYPE.
  static func sortedSet(_ db: Database, _ key: Bytes) -> Result<SortedSet?, RedisReplyError> {
    sortedSet(db[key])
  }

  /// The sorted set at the key in argument `i`, looked up in place.
  static func sortedSet(_ db: Database, _ args: some ArgumentReading, _ i: Int)
    -> Result<SortedSet?, RedisReplyError>
  {
    sortedSet(args.withBytes(i) { db[$0] })
  }

  private static func sortedSet(_ value: Value?) -> Result<SortedSet?, RedisReplyError> {
    switch value {
    case nil: return .success(nil)
    case .sortedSet(let set): return .success(set)
    case .string: return .failure(RedisReplyError(RedisError.wrongType))
    }
  }

  // MARK: GEOADD

  static func geoadd(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    let parsed: GeoAdd
    switch args.withView(GeoAdd.parse) {
    case .failure(let error): return .error(error.message)
    case .success(let request): parsed = request
    }
    let key = args.bytes(1)
    let db = call.db
    return call.write { writer -> RESPValue in
      let existing: SortedSet?
      switch sortedSet(writer.database(db), key) {
      case .failure(let error): return .error(error.message)
      case .success(let set): existing = set
      }
      if existing == nil && parsed.xx { return .integer(0) }
      let set = existing ?? writer.sortedSet(db: db, key: key)
      var added = 0
      var updated = 0
      for (member, score) in parsed.points {
        let known = set.score(of: member) != nil
        if (parsed.nx && known) || (parsed.xx && !known) { continue }
        let result = writer.upsert(db: db, key: key, set: set, member: member, score: score)
        if result.added { added += 1 } else if result.changed { updated += 1 }
      }
      writer.dropIfEmpty(db: db, key: key)
      return .integer(parsed.ch ? added + updated : added)
    }
  }

  /// GEOADD's options and points, read as `geoaddCommand` reads them.
  private struct GeoAdd {
    var nx = false
    var xx = false
    var ch = false
    var points: [(Bytes, Double)] = []

    static func parse(_ args: ArgumentView) -> Result<GeoAdd, RedisReplyError> {
      var request = GeoAdd()
      var first = 2
      while first < args.count {
        if args.is(first, "nx") {
          request.nx = true
        } else if args.is(first, "xx") {
          request.xx = true
        } else if args.is(first, "ch") {
          request.ch = true
        } else {
          break
        }
        first += 1
      }
      let remaining = args.count - first
      guard remaining % 3 == 0, !(request.xx && request.nx), remaining > 0 else {
        return .failure(RedisReplyError(RedisError.syntax))
      }
      request.points.reserveCapacity(remaining / 3)
      for i in stride(from: first, to: args.count, by: 3) {
        switch coordinate(args, i) {
        case .failure(let error): return .failure(error)
        case .success(let at):
          let score = RedisGeohash.score(longitude: at.longitude, latitude: at.latitude)!
          request.points.append((args.bytes(i + 2), Double(score)))
        }
      }
      return .success(request)
    }
  }

  // MARK: GEODIST, GEOPOS, GEOHASH

  static func geodist(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    var toMetres = 1.0
    if args.count == 5 {
      guard let unit = unit(args, 4) else { return .error(unitError) }
      toMetres = unit
    } else if args.count > 5 {
      return .error(RedisError.syntax)
    }
    return call.read { db -> RESPValue in
      switch sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(nil): return .null
      case .success(let set?):
        guard let a = set.score(of: args.bytes(2)), let b = set.score(of: args.bytes(3)) else {
          return .null
        }
        let p = SortedSet.position(score: a)
        let q = SortedSet.position(score: b)
        let metres = RedisGeoArea.distance(p.longitude, p.latitude, q.longitude, q.latitude)
        return .bulkString(ByteBuffer(string: fixedPoint4(metres / toMetres)))
      }
    }
  }

  static func geopos(_ call: inout Invocation) -> RESPValue {
    eachMember(&call, missing: .nullArray) { score in
      let at = SortedSet.position(score: score)
      return .array([
        .formattedDouble(humanDouble(at.longitude)), .formattedDouble(humanDouble(at.latitude)),
      ])
    }
  }

  static func geohash(_ call: inout Invocation) -> RESPValue {
    eachMember(&call, missing: .null) { score in
      .bulkString(ByteBuffer(string: RedisGeohash.geohashString(score: UInt64(score))))
    }
  }

  /// GEOPOS and GEOHASH: `key member...` answered member by member, `missing` for one that is
  /// not there (or when the key is missing).
  private static func eachMember(
    _ call: inout Invocation, missing: RESPValue, _ reply: (Double) -> RESPValue
  ) -> RESPValue {
    let args = call.arguments
    return call.read { db -> RESPValue in
      switch sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(let set):
        return .array(
          (2..<args.count).map { i in set?.score(of: args.bytes(i)).map(reply) ?? missing })
      }
    }
  }
}

/// An error reply carried through parsing.
struct RedisReplyError: Error {
  let message: String
  init(_ message: String) { self.message = message }
}
