import Testing

@testable import DomainSupport

@Suite struct IdTableTests {
  @Test(
    "a table by id reads what was set, across its chunks, and nothing else; it counts its values")
  func tableChunks() {
    var table = IdTable<Int>()
    let ids: [Int64] = [1, 2, 4_095, 4_096, 4_097, 8_193, 100_000]
    for id in ids { table[id] = Int(id) * 3 }
    for id in ids { #expect(table[id] == Int(id) * 3) }
    for id: Int64 in [0, -1, 3, 4_098, 8_192, 12_000, 100_001, 1 << 40] {
      #expect(table[id] == nil)
    }
    #expect(table.count == ids.count)
    table[4_096] = nil
    table[50_000] = nil  // in no chunk: nothing made
    table[1] = 7  // replaced: still one
    #expect(table[4_096] == nil && table[4_097] == 4_097 * 3 && table[50_000] == nil)
    #expect(table.count == ids.count - 1)
    var seen: [Int64] = []
    table.forEachValue { id, _ in seen.append(id) }
    #expect(seen == ids.filter { $0 != 4_096 })
  }

  @Test(
    "an index of ids by key answers as a dictionary does over 20,000 random inserts and removals, with keys crowded into few hashes (long probe runs, removals inside them) and with a reserve"
  )
  func indexAgainstDictionary() {
    for (hashes, reserved) in [(1 << 30, 0), (37, 0), (1 << 30, 5_000)] {
      var random = SystemRandomNumberGenerator()
      // Row `id` holds key `keys[id]`; the index finds rows by key.
      var keys: [Int64: Int] = [:]
      var byKey: [Int: Int64] = [:]
      var index = IdIndex()
      index.reserve(reserved)
      func hash(_ key: Int) -> Int { key % hashes }
      for _ in 0..<20_000 {
        let key = Int.random(in: 0..<3_000, using: &random)
        if let id = byKey[key] {
          index.remove(id, hash: hash(key)) { hash(keys[$0]!) }
          keys[id] = nil
          byKey[key] = nil
        } else {
          let id = Int64.random(in: 1..<1_000_000, using: &random)
          guard keys[id] == nil else { continue }
          keys[id] = key
          byKey[key] = id
          index.insert(id, hash: hash(key)) { hash(keys[$0]!) }
        }
        let probe = Int.random(in: 0..<3_000, using: &random)
        #expect(index.first(hash: hash(probe)) { keys[$0] == probe } == byKey[probe])
      }
      #expect(index.count == byKey.count)
      for (key, id) in byKey { #expect(index.first(hash: hash(key)) { keys[$0] == key } == id) }
    }
  }
}
