import RateLimits
import Testing

/// The limits per address and account, on a clock the test sets.
@Suite struct RateLimitsTests {
  @Test(
    "an address is its IP without the port: IPv4 as is, an IPv4-mapped IPv6 as its IPv4, IPv6 by its /64, a zone dropped"
  )
  func addressKeys() {
    #expect(ClientAddress.key("203.0.113.7") == "203.0.113.7")
    #expect(ClientAddress.key("::ffff:203.0.113.7") == "203.0.113.7")
    #expect(ClientAddress.key("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
    #expect(ClientAddress.key("2001:db8:1:2::1") == ClientAddress.key("2001:db8:1:2:ffff::9"))
    #expect(ClientAddress.key("2001:db8:1:3::1") != ClientAddress.key("2001:db8:1:2::1"))
    #expect(ClientAddress.key("fe80::1%eth0") == "fe80:0:0:0::/64")
    #expect(ClientAddress.key("not an address") == "not an address")
  }

  @Test(
    "KeyedLimit: at most n events per key in the window, the wait to the oldest's end; 0 is none")
  func keyed() {
    let limit = KeyedLimit(2, per: 60)
    #expect(limit.take(["a"], now: 0) == nil)
    #expect(limit.take(["a"], now: 10) == nil)
    #expect(limit.take(["a"], now: 20) == 40, "the first leaves the window at 60")
    #expect(limit.take(["b"], now: 20) == nil, "another key is not held up")
    #expect(limit.take(["a", "b"], now: 30) == 30, "nothing counted when one key is full")
    #expect(limit.take(["b"], now: 30) == nil)
    #expect(limit.take(["a"], now: 61) == nil)
    let none = KeyedLimit(0, per: 60)
    for t in 0..<100 { #expect(none.take(["a"], now: Double(t)) == nil) }
  }

  @Test("DistinctLimit: at most n distinct items per key in the window; an item seen counts once")
  func distinct() {
    let limit = DistinctLimit(2, per: 3_600)
    #expect(limit.take("cell 1", on: ["a"], now: 0) == nil)
    #expect(limit.take("cell 2", on: ["a"], now: 100) == nil)
    #expect(limit.take("cell 1", on: ["a"], now: 200) == nil, "seen already")
    #expect(limit.take("cell 3", on: ["a"], now: 300) == 3_400, "cell 2 leaves at 3,700")
    #expect(limit.take("cell 3", on: ["b"], now: 300) == nil)
    #expect(limit.take("cell 3", on: ["a"], now: 3_701) == nil, "cell 2 has left")
  }

  @Test("limits hold at most their capacity of keys, the stalest forgotten first")
  func capacity() {
    let limit = KeyedLimit(1, per: 3_600, capacity: 100)
    for key in 0..<1_000 { #expect(limit.take(["k\(key)"], now: Double(key)) == nil) }
    // The newest keys are still counted; the oldest were forgotten.
    #expect(limit.take(["k999"], now: 1_000) != nil)
    #expect(limit.take(["k0"], now: 1_000) == nil)
  }
}
