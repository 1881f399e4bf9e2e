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
}
