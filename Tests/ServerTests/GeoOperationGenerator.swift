import Datasets

/// Random GEO commands for the differential test: points clustered in a few places (including
/// both poles' limits and the antimeridian), exact duplicates, radii from 0 to beyond the
/// Earth's half circumference, every option, and malformed arguments.
struct GeoOperationGenerator {
  var random: SeededGenerator
  let keys = ["geo:a", "geo:b", "geo:c"]
  /// Members added so far, by key, to search from and to move.
  var members: [String: [String]] = [:]
  var points: [(Double, Double)] = []
  var nextMember = 0

  init(seed: UInt64) { random = SeededGenerator(seed: seed) }

  /// Where points cluster: Tokyo, the antimeridian, near each pole's limit, the null island.
  static let centres: [(Double, Double)] = [
    (139.6917, 35.6895), (179.9, -16.5), (-179.95, 52.0), (10.0, 85.0), (-45.0, -84.9),
    (0.0, 0.0), (-74.006, 40.7128),
  ]

  mutating func double(_ range: ClosedRange<Double>) -> Double {
    range.lowerBound + random.nextDouble() * (range.upperBound - range.lowerBound)
  }

  mutating func chance(_ p: Double) -> Bool { random.nextDouble() < p }

  mutating func pick<T>(_ options: [T]) -> T { options[random.nextInt(below: options.count)] }

  mutating func format(_ x: Double) -> String {
    // Mostly plain decimals; sometimes the extremes as Redis's limits spell them.
    String(x)
  }

  /// A point: near a centre (clamped to what Redis accepts), anywhere, on an edge, or a repeat.
  mutating func point() -> (Double, Double) {
    if !points.isEmpty && chance(0.15) { return pick(points) }
    var p: (Double, Double)
    switch random.nextInt(below: 10) {
    case 0: p = (double(-180...180), double(-85.05112878...85.05112878))
    case 1: p = (pick([-180.0, 180.0, 0]), pick([-85.05112878, 85.05112878, 0, 85.05, -85]))
    default:
      let c = pick(Self.centres)
      let spread = pick([0.0001, 0.01, 0.5, 5])
      p = (c.0 + double(-spread...spread), c.1 + double(-spread...spread))
      if p.0 > 180 { p.0 -= 360 }
      if p.0 < -180 { p.0 += 360 }
      p.1 = min(max(p.1, -85.05112878), 85.05112878)
    }
    points.append(p)
    return p
  }

  mutating func member(of key: String) -> String {
    if let known = members[key], !known.isEmpty, chance(0.9) { return pick(known) }
    return "m\(random.nextInt(below: 10_000))"
  }

  mutating func newMember() -> String {
    nextMember += 1
    return chance(0.1) ? "dup\(random.nextInt(below: 20))" : "m\(nextMember)"
  }

  mutating func radius() -> (String, String) {
    let unit = pick(["m", "km", "mi", "ft", "KM"])
    let metres = pick([0, 1, 50, 1000, 10_000, 100_000, 500_000, 2_000_000, 7_000_000, 21_000_000])
    let scale: Double = ["km": 1000, "KM": 1000, "mi": 1609.34, "ft": 0.3048][unit] ?? 1
    return (String(Double(metres) * double(0.5...1.5) / scale), unit)
  }

  mutating func geoadd() -> [String] {
    let key = pick(keys)
    var args = ["GEOADD", key]
    if chance(0.2) { args.append(pick(["NX", "XX", "CH", "ch"])) }
    if chance(0.1) { args.append("CH") }
    for _ in 0..<(1 + random.nextInt(below: 6)) {
      let p = point()
      let name = chance(0.3) ? member(of: key) : newMember()
      members[key, default: []].append(name)
      args += [format(p.0), format(p.1), name]
    }
    return args
  }

  /// GEOSEARCH / GEOSEARCHSTORE arguments after the key(s).
  mutating func searchOptions(key: String, store: Bool) -> [String] {
    var args: [String] = []
    if chance(0.3) {
      args += ["FROMMEMBER", member(of: key)]
    } else {
      let p = chance(0.8) ? point() : (double(-180...180), double(-85...85))
      args += ["FROMLONLAT", format(p.0), format(p.1)]
    }
    if chance(0.6) {
      let (r, unit) = radius()
      args += ["BYRADIUS", r, unit]
    } else {
      let (w, unit) = radius()
      let (h, _) = radius()
      args += ["BYBOX", w, h, unit]
    }
    // A stored result cut by COUNT may keep either of two members at an equal distance (Redis's
    // qsort decides), so storing searches cut in scan order (ANY), which is deterministic.
    if chance(0.4) {
      args += ["COUNT", String(1 + random.nextInt(below: 20))]
      if store || chance(0.3) { args.append("ANY") }
    }
    if chance(0.5) { args.append(pick(["ASC", "DESC", "asc"])) }
    if !store {
      if chance(0.4) { args.append("WITHDIST") }
      if chance(0.3) { args.append("WITHCOORD") }
      if chance(0.2) { args.append("WITHHASH") }
    } else if chance(0.5) {
      args.append("STOREDIST")
    }
    return args
  }

  mutating func georadiusOptions(store: Bool) -> [String] {
    var args: [String] = []
    if !store {
      if chance(0.4) { args.append("WITHDIST") }
      if chance(0.3) { args.append("WITHCOORD") }
      if chance(0.2) { args.append("WITHHASH") }
    }
    if chance(0.4) {
      args += ["COUNT", String(1 + random.nextInt(below: 20))]
      if store || chance(0.3) { args.append("ANY") }
    }
    if chance(0.5) { args.append(pick(["ASC", "DESC"])) }
    if store { args += [pick(["STORE", "STOREDIST"]), "geo:dest"] }
    return args
  }

  /// Arguments a client should not send: each must get the same error from both servers.
  mutating func malformed() -> [String] {
    let key = pick(keys)
    return pick([
      ["GEOADD", key, "nan", "10", "x"],
      ["GEOADD", key, "200", "10", "x"],
      ["GEOADD", key, "10", "86", "x"],
      ["GEOADD", key, "10", "20"],
      ["GEOADD", key, "NX", "XX", "10", "20", "x"],
      ["GEOADD", key, "1e400", "0", "x"],
      ["GEOADD", key, " 10", "20", "x"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "-1", "km"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "parsec"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "abc", "km"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYBOX", "1", "-1", "km"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYBOX", "x", "1", "km"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20"],
      ["GEOSEARCH", key, "BYRADIUS", "1", "km", "ASC"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "COUNT", "0"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "ANY"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "COUNT", "x"],
      ["GEOSEARCH", key, "FROMMEMBER", "nobody", "BYRADIUS", "1", "km"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "STORE", "x"],
      ["GEOSEARCH", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"],
      ["GEOSEARCHSTORE", "dst", key, "FROMLONLAT", "10", "20", "BYRADIUS", "1", "km", "WITHDIST"],
      ["GEORADIUS", key, "10", "20", "1", "km", "STORE", "dst", "WITHCOORD"],
      ["GEORADIUS_RO", key, "10", "20", "1", "km", "STORE", "dst"],
      ["GEORADIUSBYMEMBER", key, "nobody", "1", "km"],
      ["GEODIST", key, "a", "b", "furlong"],
      ["GEODIST", key, "a", "b", "km", "extra"],
      ["GEOPOS"],
      ["GEOSEARCH", key],
      ["ZRANGE", key, "0"],
      ["ZRANGE", key, "a", "b"],
      ["ZRANGE", key, "0", "-1", "LIMIT", "0", "1"],
      ["ZRANGE", key, "(x", "10", "BYSCORE"],
      ["ZSCORE", key],
      ["geosearch", key, "fromlonlat", "10", "20", "byradius", "1", "KM", "count", "-3"],
    ])
  }

  /// The next command to send to both servers.
  mutating func next() -> [String] {
    let key = pick(keys)
    switch random.nextInt(below: 100) {
    case 0..<30: return geoadd()
    case 30..<50: return ["GEOSEARCH", key] + searchOptions(key: key, store: false)
    case 50..<55: return ["GEOSEARCHSTORE", "geo:dest", key] + searchOptions(key: key, store: true)
    case 55..<60:
      let p = point()
      let (r, unit) = radius()
      let store = chance(0.3)
      return [
        pick(store ? ["GEORADIUS"] : ["GEORADIUS", "GEORADIUS_RO"]), key, format(p.0), format(p.1),
        r, unit,
      ]
        + georadiusOptions(store: store)
    case 60..<64:
      let (r, unit) = radius()
      let store = chance(0.3)
      return [
        pick(store ? ["GEORADIUSBYMEMBER"] : ["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"]), key,
        member(of: key), r, unit,
      ] + georadiusOptions(store: store)
    case 64..<69:
      var args = ["GEODIST", key, member(of: key), member(of: key)]
      if chance(0.7) { args.append(pick(["m", "km", "mi", "ft"])) }
      return args
    case 69..<73: return ["GEOPOS", key, member(of: key), member(of: key), "nobody"]
    case 73..<76: return ["GEOHASH", key, member(of: key), "nobody"]
    case 76..<79: return ["ZREM", key, member(of: key), member(of: key)]
    case 79..<82: return ["ZSCORE", key, member(of: key)]
    case 82..<84: return ["ZCARD", key]
    case 84..<87:
      return ["ZRANGE", key]
        + pick([
          ["0", "-1", "WITHSCORES"], ["0", "3"], ["-3", "-1", "REV"],
          ["0", "inf", "BYSCORE", "LIMIT", "1", "2", "WITHSCORES"],
        ])
    case 87..<88: return ["DEL", pick(keys + ["geo:dest"])]
    case 88..<89: return ["SET", "geo:string", "v"]
    case 89..<91:
      return ["GEOSEARCH", "geo:string", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"]
    case 91..<92: return ["ZRANGE", "geo:dest", "0", "-1", "WITHSCORES"]
    case 92..<93: return ["TYPE", pick(keys + ["geo:string", "geo:dest", "none"])]
    default: return malformed()
    }
  }
}
