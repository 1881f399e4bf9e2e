import Datasets
import Geodesy
import Keyspace
import Testing

/// `SortedSet.search` against a brute-force replica of Redis's scan: every member checked
/// against every scanned cell in order, by score within a cell.
@Suite("GEO search against a brute-force scan")
struct GeoSearchOracleTests {
  /// A search result with its member named, to compare with the brute-force scan.
  struct Named: Hashable {
    var member: Bytes
    var distance: Double
    var score: Double
    var longitude: Double
    var latitude: Double
  }

  static func named(_ matches: [GeoMatch], in set: SortedSet) -> [Named] {
    matches.map {
      Named(
        member: set.member($0), distance: $0.distance, score: $0.score, longitude: $0.longitude,
        latitude: $0.latitude)
    }
  }

  /// What Redis's `membersOfAllNeighbors` returns, computed by scanning every member.
  static func bruteForce(
    _ entries: [(member: Bytes, score: Double)], _ search: RedisGeoArea.Search, any count: Int?
  ) -> [Named] {
    let ordered = entries.sorted {
      $0.score < $1.score
        || ($0.score == $1.score && $0.member.lexicographicallyPrecedes($1.member))
    }
    var out: [Named] = []
    for cell in RedisGeoArea.cells(for: search) {
      for (member, score) in ordered where cell.contains(score: UInt64(score)) {
        let at = SortedSet.position(score: score)
        guard let d = search.distance(toLongitude: at.longitude, latitude: at.latitude) else {
          continue
        }
        out.append(
          Named(
            member: member, distance: d, score: score, longitude: at.longitude,
            latitude: at.latitude))
        if let count, out.count >= count { return out }
      }
    }
    return out
  }

  static func randomSet(_ random: inout SeededGenerator, size: Int) -> (
    SortedSet, [(member: Bytes, score: Double)]
  ) {
    let set = SortedSet()
    var entries: [(member: Bytes, score: Double)] = []
    let centres: [(Double, Double)] = [
      (139.69, 35.68), (179.99, 0), (-179.99, 10), (0, 85.05), (20, -85.05),
    ]
    for i in 0..<size {
      let c = centres[random.nextInt(below: centres.count)]
      var lon = c.0 + (random.nextDouble() - 0.5) * 2
      if lon > 180 { lon -= 360 }
      if lon < -180 { lon += 360 }
      let lat = min(max(c.1 + (random.nextDouble() - 0.5) * 2, -85.05112878), 85.05112878)
      let score = Double(RedisGeohash.score(longitude: lon, latitude: lat)!)
      let member = Array("m\(i % (size - 3))".utf8)  // a few members are moved
      set.upsert(member, score: score)
      entries.removeAll { $0.member == member }
      entries.append((member, score))
    }
    return (set, entries)
  }

  @Test("unsorted, ANY and sorted searches equal the brute-force scan", arguments: [UInt64(7), 8])
  func searchesMatch(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    let (set, entries) = Self.randomSet(&random, size: 3000)
    #expect(set.count == entries.count)
    for q in 0..<400 {
      let from = entries[random.nextInt(below: entries.count)]
      let at = SortedSet.position(score: from.score)
      let radius =
        [0, 10, 1000, 50_000, 300_000, 3_000_000, 25_000_000][q % 7] * (0.5 + random.nextDouble())
      let shape: RedisGeoArea.Shape =
        q % 3 == 0
        ? .box(width: radius, height: radius * random.nextDouble()) : .circle(radius: radius)
      let search = RedisGeoArea.Search(
        longitude: at.longitude, latitude: at.latitude, shape: shape, conversion: 1)
      let all = Self.bruteForce(entries, search, any: nil)
      #expect(Self.named(set.search(search, sort: .none, count: 0, any: false), in: set) == all)
      let anyCount = 1 + random.nextInt(below: 10)
      #expect(
        Self.named(set.search(search, sort: .none, count: anyCount, any: true), in: set)
          == Self.bruteForce(entries, search, any: anyCount))
      let k = 1 + random.nextInt(below: 15)
      let nearest = set.search(search, sort: .ascending, count: k, any: false)
      let expected = all.map(\.distance).sorted().prefix(k)
      #expect(nearest.map(\.distance) == Array(expected))
      // Without distances, chords may decide: the same members, in the same order.
      let unmeasured = set.search(search, sort: .ascending, count: k, any: false, distances: false)
      #expect(unmeasured.map(\.slot) == nearest.map(\.slot))
      let farthest = set.search(search, sort: .descending, count: 0, any: false)
      #expect(farthest.map(\.distance) == all.map(\.distance).sorted(by: >))
    }
  }
}
