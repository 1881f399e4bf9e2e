import Datasets
import Testing

@testable import Keyspace

/// The order tree against a brute-force sorted array: random inserts, rescores and removes,
/// scores drawn from a small pool so that many tie and the names decide.
@Suite("Score order against a sorted array")
struct ScoreOrderTests {
  /// The tree, its names and scores, and the same entries kept as a sorted array.
  struct Model {
    let names = MemberTable()
    let order: ScoreOrder
    var scores: [UInt32: Double] = [:]
    var sorted: [(score: Double, name: Bytes, slot: UInt32)] = []

    init() { order = ScoreOrder(names: names) }

    static func precedes(_ a: (Double, Bytes), _ b: (Double, Bytes)) -> Bool {
      a.0 < b.0 || (a.0 == b.0 && a.1.lexicographicallyPrecedes(b.1))
    }

    /// Where (score, name) is or belongs in `sorted`.
    func place(_ score: Double, _ name: Bytes) -> Int {
      var low = 0
      var high = sorted.count
      while low < high {
        let mid = (low + high) / 2
        if Self.precedes((sorted[mid].score, sorted[mid].name), (score, name)) {
          low = mid + 1
        } else {
          high = mid
        }
      }
      return low
    }

    mutating func insert(_ slot: UInt32, _ name: Bytes, _ score: Double) {
      names.insert(name, at: slot)
      order.insert(slot, score: score)
      scores[slot] = score
      sorted.insert((score, name, slot), at: place(score, name))
    }

    mutating func remove(_ slot: UInt32) {
      order.remove(slot, score: scores[slot]!)
      sorted.remove(at: place(scores[slot]!, names.name(slot)))
      names.remove(slot: slot)
      scores[slot] = nil
    }

    mutating func rescore(_ slot: UInt32, _ score: Double) {
      let name = names.name(slot)
      order.remove(slot, score: scores[slot]!)
      order.insert(slot, score: score)
      sorted.remove(at: place(scores[slot]!, name))
      scores[slot] = score
      sorted.insert((score, name, slot), at: place(score, name))
    }

    func slots(_ ranks: Range<Int>) -> [UInt32] {
      var out: [UInt32] = []
      order.forEach(ranks) { slot, score in
        #expect(scores[slot] == score)
        out.append(slot)
      }
      return out
    }

    /// Everything the tree answers, checked against the array.
    func check(_ random: inout SeededGenerator, pool: [Double]) {
      #expect(order.count == sorted.count)
      #expect(slots(0..<sorted.count) == sorted.map(\.slot))
      for _ in 0..<20 where !sorted.isEmpty {
        let a = random.nextInt(below: sorted.count + 1)
        let b = random.nextInt(below: sorted.count + 1)
        let ranks = min(a, b)..<max(a, b)
        #expect(slots(ranks) == sorted[ranks].map(\.slot))
        let rank = random.nextInt(below: sorted.count)
        #expect(order.rank(of: sorted[rank].slot, score: sorted[rank].score) == rank)
        // Bounds on scores held, between them, and beyond every one.
        let bound =
          random.nextInt(below: 4) == 0
          ? [-Double.infinity, .infinity, -1, 1e300][random.nextInt(below: 4)]
          : pool[random.nextInt(below: pool.count)] + [0, 0.5][random.nextInt(below: 2)]
        #expect(
          order.count(below: bound, orEqual: false) == sorted.count(where: { $0.score < bound }))
        #expect(
          order.count(below: bound, orEqual: true) == sorted.count(where: { $0.score <= bound }))
      }
      // No taller than its fewest possible entries allow: two children under the root, and a
      // quarter of a node's 64 places in use below it.
      var fewest = 1
      for level in 0..<order.height { fewest *= level == 0 ? 32 : 16 }
      #expect(sorted.count >= fewest || order.height == 0)
    }
  }

  @Test("random inserts, rescores and removes", arguments: [UInt64(1), 2, 3])
  func randomOperations(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    // Few scores (many ties) for seed 1, geohash-like ones for the others.
    let pool: [Double] =
      seed == 1
      ? (0..<12).map { Double($0) * 3 }
      : (0..<5000).map { _ in Double(random.nextInt(below: 1 << 52)) }
    var model = Model()
    var free: [UInt32] = []
    var next: UInt32 = 0
    // Grow to thousands (leaves, inner nodes, a root), shrink to a few hundred, grow, empty.
    for phase in [6000, 200, 3000, 0, 500] {
      while model.sorted.count != phase {
        let growing = model.sorted.count < phase
        let action = random.nextInt(below: 10)
        let victim =
          model.sorted.isEmpty ? nil : model.sorted[random.nextInt(below: model.sorted.count)].slot
        if action < 3, let victim {
          model.rescore(victim, pool[random.nextInt(below: pool.count)])
        } else if growing == (action < 8) {
          let name =
            Array("m\(random.nextInt(below: 1_000_000))".utf8)
            + Array(repeating: 0, count: random.nextInt(below: 3))
          guard model.names.slot(of: name) == nil else { continue }
          let slot: UInt32
          if let reused = free.popLast() {
            slot = reused
          } else {
            slot = next
            next += 1
          }
          model.insert(slot, name, pool[random.nextInt(below: pool.count)])
        } else if let victim {
          model.remove(victim)
          free.append(victim)
        }
        if random.nextInt(below: 500) == 0 { model.check(&random, pool: pool) }
      }
      model.check(&random, pool: pool)
    }
  }

  @Test("a tree built in one pass answers as one built by inserts, and takes inserts after")
  func build() {
    var random = SeededGenerator(seed: 7)
    for n in [0, 1, 63, 64, 65, 4096, 4097, 10_000] {
      var model = Model()
      var entries: [(Double, UInt32)] = []
      for i in 0..<n {
        let name = Array("b\(i)".utf8)
        model.names.insert(name, at: UInt32(i))
        let score = Double(random.nextInt(below: 1000))
        model.scores[UInt32(i)] = score
        model.sorted.append((score, name, UInt32(i)))
        entries.append((score, UInt32(i)))
      }
      model.sorted.sort { Model.precedes(($0.score, $0.name), ($1.score, $1.name)) }
      var scores = [Double](repeating: 0, count: n)
      for (score, slot) in entries { scores[Int(slot)] = score }
      model.order.build(model.sorted.map(\.slot), scores: scores)
      model.check(&random, pool: [0, 500, 999])
      for i in n..<n + 300 {
        model.insert(UInt32(i), Array("b\(i)".utf8), Double(random.nextInt(below: 1000)))
      }
      for slot in model.sorted.map(\.slot).prefix(200) { model.remove(slot) }
      model.check(&random, pool: [0, 500, 999])
    }
  }
}
