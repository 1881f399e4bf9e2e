import Testing

@testable import Keyspace

@Suite struct KeyTests {
  /// Keys either side of the inline size, and ones that differ only by a trailing zero byte.
  static let keys: [Bytes] = [
    [], [0], [0, 0], Array("a".utf8), Array("a".utf8) + [0], Array("bench:points".utf8),
    Array(repeating: 7, count: 23), Array(repeating: 7, count: 24), Array(repeating: 7, count: 25),
    Array(repeating: 7, count: 24) + [0], Array(repeating: 0, count: 24),
    Array(repeating: 0, count: 25), Array("user:12345:location:current".utf8),
  ]

  @Test func equalExactlyWhenTheBytesAre() {
    for a in Self.keys {
      #expect(Key(a).bytes == a)
      for b in Self.keys {
        #expect((Key(a) == Key(b)) == (a == b), "\(a) \(b)")
        if a == b { #expect(Key(a).hashValue == Key(b).hashValue) }
      }
    }
  }

  @Test func aKeyInPlaceFindsTheStoredOne() {
    let db = Database()
    for (i, key) in Self.keys.enumerated() { db.store(.string([UInt8(i)]), at: Key(key)) }
    #expect(db.count == Self.keys.count)
    for (i, key) in Self.keys.enumerated() {
      guard case .string(let value) = key.withUnsafeBytes({ db[$0] }) else {
        Issue.record("\(key) not found")
        continue
      }
      #expect(value == [UInt8(i)])
      #expect(db[key] != nil)
    }
    #expect(Set(db.keys) == Set(Self.keys))
    #expect(db[Array("missing".utf8)] == nil)
  }
}
