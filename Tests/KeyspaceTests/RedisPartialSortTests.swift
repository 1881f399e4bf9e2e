import Datasets
import Testing

@testable import Keyspace

/// Redis's partial quicksort, on inputs full of equal keys: whatever order it leaves equal
/// elements in (the differential test checks that against redis-server), the first `k` must
/// be the k smallest, sorted, and nothing may be lost or repeated.
@Suite("Redis's partial sort")
struct RedisPartialSortTests {
  @Test("the first k come out sorted and every element stays", arguments: [UInt64(5), 6])
  func firstKSorted(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    for _ in 0..<2000 {
      let n = 1 + random.nextInt(below: 150)
      let k = 1 + random.nextInt(below: n + 5)
      let distinct = 1 + random.nextInt(below: 12)
      let keys = (0..<n).map { _ in random.nextInt(below: distinct) }
      var items = Array(keys.enumerated())
      redisPartialSort(&items, first: k) { a, b in
        a.element < b.element ? -1 : (a.element == b.element ? 0 : 1)
      }
      let head = items.prefix(k).map(\.element)
      #expect(head == Array(keys.sorted().prefix(k)))
      #expect(items.map(\.offset).sorted() == Array(0..<n))
    }
  }
}
