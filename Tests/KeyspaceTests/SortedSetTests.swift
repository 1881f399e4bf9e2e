import Datasets
import Geodesy
import Keyspace
import Testing

/// The sorted set's bookkeeping against a plain dictionary: members, scores, slots reused,
/// names compacted, ranks and score ranges in Redis's order.
@Suite("Sorted set against a dictionary model")
struct SortedSetTests {
  @Test("random adds, moves and removes keep members, scores and order", arguments: [UInt64(3), 4])
  func randomMutations(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    let set = SortedSet()
    var model: [Bytes: Double] = [:]
    for step in 0..<20_000 {
      // Names of every length, binary bytes included; a small pool so they repeat.
      let n = random.nextInt(below: 3000)
      let member: Bytes =
        Array("m\(n)".utf8) + (n % 7 == 0 ? [0, 255, 13, 10] : [])
        + Array(repeating: UInt8(n % 251), count: n % 40)
      if random.nextInt(below: 3) == 0 {
        #expect(set.remove(member) == (model.removeValue(forKey: member) != nil))
      } else {
        let lon = random.nextDouble() * 360 - 180
        let lat = random.nextDouble() * 170 - 85
        let score = Double(RedisGeohash.score(longitude: lon, latitude: lat)!)
        let result = set.upsert(member, score: score)
        #expect(result.added == (model[member] == nil))
        model[member] = score
      }
      if step % 1000 == 0 {
        #expect(set.count == model.count)
        for (member, score) in model.prefix(200) { #expect(set.score(of: member) == score) }
      }
    }
    #expect(set.count == model.count)
    for (member, score) in model { #expect(set.score(of: member) == score) }
    let expected = model.sorted {
      $0.value < $1.value || ($0.value == $1.value && $0.key.lexicographicallyPrecedes($1.key))
    }
    let ranked = set.entries(ranks: 0...(model.count - 1), reverse: false)
    #expect(ranked.map(\.member) == expected.map(\.key))
    #expect(
      set.entries(ranks: 0...4, reverse: true).map(\.member)
        == expected.suffix(5).reversed().map(\.key))
    let middle = expected[expected.count / 2].value
    let above = set.entries(
      scores: ScoreRange(min: middle, minExclusive: true, max: .infinity, maxExclusive: false),
      reverse: false, offset: 0, limit: nil)
    #expect(above.map(\.member) == expected.filter { $0.value > middle }.map(\.key))
  }

  @Test("a set built in one pass equals one built by upserts")
  func bulkBuild() {
    var random = SeededGenerator(seed: 9)
    var entries: [(member: Bytes, score: Double)] = []
    for i in 0..<5000 {
      let score = Double(
        RedisGeohash.score(
          longitude: random.nextDouble() * 360 - 180, latitude: random.nextDouble() * 170 - 85)!)
      entries.append((Array("k\(i % 4000)".utf8), score))  // later duplicates win
    }
    let bulk = SortedSet(entries: entries)
    let incremental = SortedSet()
    for (member, score) in entries { incremental.upsert(member, score: score) }
    #expect(bulk.count == 4000 && incremental.count == 4000)
    #expect(
      bulk.entries(ranks: 0...3999, reverse: false).map(\.member)
        == incremental.entries(ranks: 0...3999, reverse: false).map(\.member))
  }

  @Test("ranks, rank ranges and score ranges, reversed too, against a sorted array")
  func orderedReads() {
    var random = SeededGenerator(seed: 5)
    let set = SortedSet()
    var model: [Bytes: Double] = [:]
    // Positions repeat, so scores tie and names decide.
    let places = (0..<300).map { _ in
      Double(
        RedisGeohash.score(
          longitude: random.nextDouble() * 360 - 180, latitude: random.nextDouble() * 170 - 85)!)
    }
    for step in 0..<6000 {
      let member = Array("p\(random.nextInt(below: 2500))".utf8)
      if random.nextInt(below: 4) == 0 {
        set.remove(member)
        model[member] = nil
      } else {
        let score = places[random.nextInt(below: places.count)]
        set.upsert(member, score: score)
        model[member] = score
      }
      guard step % 500 == 499 else { continue }
      let sorted = model.sorted {
        $0.value < $1.value || ($0.value == $1.value && $0.key.lexicographicallyPrecedes($1.key))
      }
      for (rank, entry) in sorted.enumerated() where rank % 37 == 0 {
        #expect(set.rank(of: entry.key) == rank)
      }
      #expect(set.rank(of: Array("absent".utf8)) == nil)
      for _ in 0..<30 {
        let a = random.nextInt(below: sorted.count)
        let b = random.nextInt(below: sorted.count)
        let ranks = min(a, b)...max(a, b)
        #expect(set.entries(ranks: ranks, reverse: false).map(\.member) == sorted[ranks].map(\.key))
        #expect(
          set.entries(ranks: ranks, reverse: true).map(\.member)
            == Array(sorted.reversed())[ranks].map(\.key))
        let low = places[random.nextInt(below: places.count)]
        let high =
          random.nextInt(below: 5) == 0
          ? Double.infinity : places[random.nextInt(below: places.count)]
        let range = ScoreRange(
          min: low, minExclusive: random.nextInt(below: 2) == 0, max: high,
          maxExclusive: random.nextInt(below: 2) == 0)
        let within = sorted.filter { range.contains($0.value) }
        #expect(set.count(scores: range) == within.count)
        let offset = random.nextInt(below: 4) == 0 ? 0 : random.nextInt(below: within.count + 3)
        let limit = random.nextInt(below: 3) == 0 ? nil : random.nextInt(below: 20)
        for reverse in [false, true] {
          let expected = (reverse ? within.reversed() : within).dropFirst(offset)
            .prefix(limit ?? .max)
          let got = set.entries(scores: range, reverse: reverse, offset: offset, limit: limit)
          #expect(got.map(\.member) == expected.map(\.key))
          #expect(got.map(\.score) == expected.map(\.value))
        }
      }
    }
  }
}
