import Geodesy
import Keyspace
import RESP

/// GEOSEARCH, GEOSEARCHSTORE and the GEORADIUS family: Redis 7.0's `georadiusGeneric`.
extension GeoCommands {
  struct SearchFlags: OptionSet {
    let rawValue: Int
    static let coordinates = SearchFlags(rawValue: 1)
    static let member = SearchFlags(rawValue: 2)
    static let noStore = SearchFlags(rawValue: 4)
    static let geosearch = SearchFlags(rawValue: 8)
    static let geosearchStore = SearchFlags(rawValue: 16)
  }

  /// A parsed search request.
  struct Request {
    var center: Coordinate?
    var fromMember: Bytes?
    var shape: RedisGeoArea.Shape?
    var conversion = 1.0
    var withDist = false
    var withHash = false
    var withCoord = false
    var sort = GeoSortOrder.none
    var any = false
    var count = 0
    var storeKey: Bytes?
    var storeDist = false
  }

  static func search(_ call: inout Invocation, source: Int, _ flags: SearchFlags) -> RESPValue {
    // Peek at the options for a store key: a storing search runs under the write lock.
    let stores = flags.contains(.geosearchStore) || storeOption(call.arguments, flags)
    if !stores {
      let args = call.arguments
      let resp3 = call.resp3
      var large = false
      let reply = call.read { db in
        args.withView { view in
          view.withBytes(source) { key in
            db.withSortedSet(at: key) { answer(view, $0, flags, resp3: resp3, large: &large) }
              ?? .error(RedisError.wrongType)
          }
        }
      }
      guard large else { return reply }
      // Run again, off the event loop: the set may have changed meanwhile.
      let keyspace = call.keyspace.takeUnretainedValue()
      let db = call.db
      call.deferred = {
        keyspace.read(db: db) { db in
          args.withView { view in
            view.withBytes(source) { key in
              db.withSortedSet(at: key) { answer(view, $0, flags, resp3: resp3, large: nil) }
                ?? .error(RedisError.wrongType)
            }
          }
        }
      }
      return reply
    }
    let db = call.db
    let args = call.arguments
    return call.write { writer -> RESPValue in
      let parsed = args.withView { view in
        sortedSet(writer.database(db), view, source).flatMap {
          set -> Result<(Request, SortedSet?), RedisReplyError> in
          var request = Request()
          if let error = parse(view, set, flags, into: &request) { return .failure(error) }
          return .success((request, set))
        }
      }
      switch parsed {
      case .failure(let error): return .error(error.message)
      case .success(let (request, set)): return store(request, set, db: db, writer: &writer)
      }
    }
  }

  /// A read-only search's reply, from the set at its key (nil when the key is missing). Given
  /// `large`, a search that may be large is not run: `large` is set instead.
  private static func answer(
    _ args: ArgumentView, _ set: SortedSet?, _ flags: SearchFlags, resp3: Bool,
    large: UnsafeMutablePointer<Bool>?
  ) -> RESPValue {
    // Parsed in place rather than returned in a `Result`, whose copies counted references.
    var request = Request()
    if let error = parse(args, set, flags, into: &request) { return .error(error.message) }
    // A switch, not `guard let`: binding the lent set would copy (retain) it.
    switch set {
    case .none: return .array([])
    case .some(let set):
      if let large, mayBeLarge(request, set) {
        large.pointee = true
        return .null
      }
      return reply(request, set, resp3: resp3)
    }
  }

  /// Searches that may visit more members than this run off the event loop (on the server's
  /// thread pool, as BACKUP does), so that the loop's other connections are served meanwhile:
  /// a whole-world search of a million members takes hundreds of milliseconds.
  static let largeSearch = 20_000

  /// Whether a search may visit more than `largeSearch` members. The nearest few (`ASC COUNT n`,
  /// the map's search) visit about n, and are told in three comparisons; others ask the index
  /// for a bound from its node counts.
  private static func mayBeLarge(_ request: Request, _ set: SortedSet) -> Bool {
    if request.sort == .ascending && !request.any && request.count > 0
      && request.count <= largeSearch
    {
      return false
    }
    guard let center = request.center, let shape = request.shape else { return false }
    let search = RedisGeoArea.Search(
      longitude: center.longitude, latitude: center.latitude, shape: shape,
      conversion: request.conversion)
    return set.mayFind(moreThan: largeSearch, search)
  }

  /// Whether a GEORADIUS-style command names STORE or STOREDIST with a key after it.
  private static func storeOption(_ args: Arguments, _ flags: SearchFlags) -> Bool {
    guard !flags.contains(.noStore), !flags.contains(.geosearch) else { return false }
    let base = flags.contains(.coordinates) ? 6 : 5
    guard args.count > base + 1 else { return false }
    return (base..<(args.count - 1)).contains { args.is($0, "store") || args.is($0, "storedist") }
  }

  /// Reads the arguments into `request` (a fresh one) in Redis's order, returning the first error
  /// Redis would report (after the key's type, which the caller has checked in looking `set` up).
  private static func parse(
    _ args: ArgumentView, _ set: SortedSet?, _ flags: SearchFlags, into request: inout Request
  ) -> RedisReplyError? {
    var base: Int
    if flags.contains(.coordinates) {
      base = 6
      switch coordinate(args, 2) {
      case .failure(let error): return error
      case .success(let at): request.center = at
      }
      switch distance(args, 4) {
      case .failure(let error): return error
      case .success(let (radius, conversion)):
        request.shape = .circle(radius: radius)
        request.conversion = conversion
      }
    } else if flags.contains(.member) {
      base = 5
      if let set {
        guard let score = set.score(of: args.bytes(2)) else {
          return RedisReplyError("ERR could not decode requested zset member")
        }
        request.center = SortedSet.position(score: score)
        switch distance(args, 3) {
        case .failure(let error): return error
        case .success(let (radius, conversion)):
          request.shape = .circle(radius: radius)
          request.conversion = conversion
        }
      }
    } else {
      base = flags.contains(.geosearchStore) ? 3 : 2
      if flags.contains(.geosearchStore) { request.storeKey = args.bytes(1) }
    }
    if let error = parseOptions(args, from: base, set, flags, &request) { return error }
    if request.storeKey != nil && (request.withDist || request.withHash || request.withCoord) {
      let what =
        flags.contains(.geosearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS"
      return RedisReplyError(
        "ERR \(what) is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
    }
    if flags.contains(.geosearch) {
      if request.center == nil && request.fromMember == nil {
        return RedisReplyError(
          "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for \(args.string(0))")
      }
      if request.shape == nil {
        return RedisReplyError(
          "ERR exactly one of BYRADIUS and BYBOX can be specified for \(args.string(0))")
      }
    }
    if request.any && request.count == 0 {
      return RedisReplyError("ERR the ANY argument requires COUNT argument")
    }
    if request.count != 0 && request.sort == .none && !request.any { request.sort = .ascending }
    return nil
  }

  /// The optional arguments, as `georadiusGeneric`'s loop reads them.
  private static func parseOptions(
    _ args: ArgumentView, from base: Int, _ set: SortedSet?, _ flags: SearchFlags,
    _ request: inout Request
  ) -> RedisReplyError? {
    let geosearch = flags.contains(.geosearch)
    let storable = !flags.contains(.noStore) && !geosearch
    var fromMember = false
    var fromLocation = false
    var byRadius = false
    var byBox = false
    let name = optionNames
    var i = base
    while i < args.count {
      let remaining = args.count - i - 1
      let word = args.keyword(i)
      // The options of the map's search (GEOSEARCH FROMLONLAT … BYRADIUS … COUNT n ASC) come
      // first: each is found after fewer comparisons. Each name but STOREDIST has one branch,
      // so the order does not change what is accepted; STOREDIST's two keep theirs.
      if word == name.fromlonlat && remaining >= 2 && geosearch && !fromMember {
        switch coordinate(args, i + 1) {
        case .failure(let error): return error
        case .success(let at): request.center = at
        }
        fromLocation = true
        i += 2
      } else if word == name.byradius && remaining >= 2 && geosearch && !byBox {
        switch distance(args, i + 1) {
        case .failure(let error): return error
        case .success(let (radius, conversion)):
          request.shape = .circle(radius: radius)
          request.conversion = conversion
        }
        byRadius = true
        i += 2
      } else if word == name.count && remaining >= 1 {
        // Saturated: the search asks its index for `count + 1`.
        guard let count = args.saturatingInteger(i + 1) else {
          return RedisReplyError(RedisError.notInteger)
        }
        guard count > 0 else { return RedisReplyError("ERR COUNT must be > 0") }
        request.count = count
        i += 1
      } else if word == name.asc {
        request.sort = .ascending
      } else if word == name.desc {
        request.sort = .descending
      } else if word == name.withdist {
        request.withDist = true
      } else if word == name.withcoord {
        request.withCoord = true
      } else if word == name.withhash {
        request.withHash = true
      } else if word == name.any {
        request.any = true
      } else if word == name.frommember && remaining >= 1 && geosearch && !fromLocation {
        if let set {
          guard let score = set.score(of: args.bytes(i + 1)) else {
            return RedisReplyError("ERR could not decode requested zset member")
          }
          request.center = SortedSet.position(score: score)
        }
        request.fromMember = args.bytes(i + 1)
        fromMember = true
        i += 1
      } else if word == name.bybox && remaining >= 3 && geosearch && !byRadius {
        guard let width = args.double(i + 1) else {
          return RedisReplyError("ERR need numeric width")
        }
        guard let height = args.double(i + 2) else {
          return RedisReplyError("ERR need numeric height")
        }
        guard width >= 0, height >= 0 else {
          return RedisReplyError("ERR height or width cannot be negative")
        }
        guard let conversion = unit(args, i + 3) else { return RedisReplyError(unitError) }
        request.shape = .box(width: width, height: height)
        request.conversion = conversion
        byBox = true
        i += 3
      } else if word == name.store && remaining >= 1 && storable {
        request.storeKey = args.bytes(i + 1)
        request.storeDist = false
        i += 1
      } else if word == name.storedist && remaining >= 1 && storable {
        request.storeKey = args.bytes(i + 1)
        request.storeDist = true
        i += 1
      } else if word == name.storedist && flags.contains(.geosearchStore) {
        request.storeDist = true
      } else {
        return RedisReplyError(RedisError.syntax)
      }
      i += 1
    }
    return nil
  }

  /// Runs the search and lends its matches to `body`.
  private static func withMatches(
    _ request: Request, _ set: SortedSet, _ body: (UnsafeBufferPointer<GeoMatch>) -> Void
  ) {
    guard let center = request.center, let shape = request.shape else {
      return body(UnsafeBufferPointer(start: nil, count: 0))
    }
    let search = RedisGeoArea.Search(
      longitude: center.longitude, latitude: center.latitude, shape: shape,
      conversion: request.conversion)
    set.withSearch(
      search, sort: request.sort, count: request.count, any: request.any,
      distances: request.withDist || request.storeDist, body)
  }

  /// The reply, encoded straight into bytes, names read from the set in place: the map's hot
  /// path returns thousands of these a second and a tree of values per member costs more than
  /// the search. A reply of names alone (the common one) reserves its room once.
  private static func reply(_ request: Request, _ set: SortedSet, resp3: Bool) -> RESPValue {
    let fields =
      1 + (request.withDist ? 1 : 0) + (request.withHash ? 1 : 0) + (request.withCoord ? 1 : 0)
    var reply = RESPValue.null
    withMatches(request, set) { found in
      reply = ReplyBuffers.reply(protocol: resp3 ? .resp3 : .resp2) { out in
        guard fields > 1 else {
          let room =
            RESPWriter.headerRoom + found.count * RESPWriter.bulkRoom(0)
            + set.memberLengths(found)
          out.reserving(room) { cursor in
            cursor.arrayHeader(found.count)
            set.forEachMember(of: found) { cursor.bulk($0) }
          }
          return
        }
        out.arrayHeader(found.count)
        for match in found {
          out.arrayHeader(fields)
          set.withMember(match) { out.bulk($0) }
          if request.withDist {
            withFixedPoint4(match.distance / request.conversion) { out.bulk($0) }
          }
          if request.withHash { out.integer(Int(match.score)) }
          if request.withCoord {
            out.arrayHeader(2)
            withHumanDouble(match.longitude) { out.formattedDouble($0) }
            withHumanDouble(match.latitude) { out.formattedDouble($0) }
          }
        }
      }
    }
    return reply
  }

  /// STORE / STOREDIST / GEOSEARCHSTORE: replace the destination with the results.
  private static func store(
    _ request: Request, _ set: SortedSet?, db: Int, writer: inout Keyspace.Writer
  ) -> RESPValue {
    guard let destination = request.storeKey else { return .array([]) }
    var found: [(member: Bytes, match: GeoMatch)] = []
    if let set {
      withMatches(request, set) { found = $0.map { (member: set.member($0), match: $0) } }
    }
    writer.delete(db: db, key: destination)
    guard !found.isEmpty else { return .integer(0) }
    let target = writer.sortedSet(db: db, key: destination)
    for (member, match) in found {
      let score = request.storeDist ? match.distance / request.conversion : match.score
      writer.upsert(db: db, key: destination, set: target, member: member, score: score)
    }
    return .integer(found.count)
  }
}

/// The option names, fetched once per request: every static constant read costs a check that
/// it is initialised, and a search compares each option word with up to a dozen names.
private struct OptionNames {
  let withdist = Keyword("withdist")
  let withhash = Keyword("withhash")
  let withcoord = Keyword("withcoord")
  let any = Keyword("any")
  let asc = Keyword("asc")
  let desc = Keyword("desc")
  let count = Keyword("count")
  let store = Keyword("store")
  let storedist = Keyword("storedist")
  let frommember = Keyword("frommember")
  let fromlonlat = Keyword("fromlonlat")
  let byradius = Keyword("byradius")
  let bybox = Keyword("bybox")
}

private let optionNames = OptionNames()
