import Datasets
import Keyspace
import Testing

/// The iterative matcher against a plain transcription of Redis's recursive `stringmatchlen`
/// (nesting limit, signed ranges and all), on random patterns with and without case: the
/// comparison with redis-server itself, through KEYS, is in ServerTests.
@Suite("Glob matching")
struct GlobTests {
  @Test("agrees with Redis's recursive matcher on random patterns, either case rule")
  func randomAgreement() {
    var random = SeededGenerator(seed: 36021)
    let alphabet: [UInt8] = Array("ab*?[]^-\\Az".utf8) + [0, 0x80, 0xFF]
    var disagreements = 0
    for _ in 0..<200_000 {
      let pattern = (0..<random.nextInt(below: 10)).map { _ in
        alphabet[random.nextInt(below: alphabet.count)]
      }
      let string = (0..<random.nextInt(below: 8)).map { _ in
        alphabet[random.nextInt(below: alphabet.count)]
      }
      for nocase in [false, true] {
        let expected = Self.redis(pattern[...], string[...], nocase)
        if globMatches(pattern, string, ignoringCase: nocase) != expected {
          disagreements += 1
          if disagreements <= 5 {
            Issue.record("\(pattern) \(string) nocase \(nocase): expected \(expected)")
          }
        }
      }
    }
    #expect(disagreements == 0)
  }

  @Test("the nesting limit, and patterns that took exponential time or deep recursion")
  func hostilePatterns() {
    let key = [UInt8](repeating: UInt8(ascii: "a"), count: 1001)
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
    let stars = { (n: Int) in Array(String(repeating: "*a", count: n).utf8) }
    // Results bound first, so that a failure prints a word, not the pattern.
    let under = globMatches(stars(1000), key)
    let over = globMatches(stars(1001), key)
    let trailing = globMatches(stars(1000) + [UInt8(ascii: "*")], key)
    let deep = globMatches(stars(60_000) + [UInt8(ascii: "b")], long)
    let justUnder = globMatches(stars(999) + [UInt8(ascii: "b")], long)
    let backtracking = globMatches(Array("*a*a*a*a*a*a*a*a*a*a*".utf8), long)
    #expect(under && !over && trailing)
    #expect(!deep && !justUnder && backtracking)
    #expect(globMatches(Array("a*A".utf8), Array("abcA".utf8)))
    #expect(globMatches(Array("A*[B-C]".utf8), Array("abcb".utf8), ignoringCase: true))
  }

  @Test(
    "globCouldMatch never misses: a pattern matching some string that begins with the prefix is reported"
  )
  func couldMatchAPrefix() {
    var random = SeededGenerator(seed: 24)
    let alphabet: [UInt8] = Array("ab:*?[]^-\\".utf8)
    let prefix: [UInt8] = Array("a:".utf8)
    // Every string of the prefix and up to three more bytes.
    var strings: [[UInt8]] = [prefix]
    var last = [prefix]
    for _ in 0..<3 {
      last = last.flatMap { s in Array("ab:*".utf8).map { s + [$0] } }
      strings += last
    }
    var missed = 0
    var refused = 0
    for _ in 0..<3_000 {
      let pattern = (0..<random.nextInt(below: 7)).map { _ in
        alphabet[random.nextInt(below: alphabet.count)]
      }
      let reaches = strings.contains { Self.redis(pattern[...], $0[...], false) }
      let reported = globCouldMatch(pattern, startingWith: prefix)
      if reaches && !reported {
        missed += 1
        Issue.record("\(String(decoding: pattern, as: UTF8.self)) reaches a:… unreported")
      }
      if !reported { refused += 1 }
    }
    #expect(missed == 0)
    // And it tells: most random patterns cannot reach the prefix.
    #expect(refused > 1_000)
    for (pattern, expected) in [
      ("wallet:*", true), ("*", true), ("w*", true), ("[vw]allet:?", true), ("wallet\\:5", true),
      ("wallet:", true), ("news.*", false), ("wallet", false), ("[^w]*", false),
      ("account:*", false),
      ("?allet:1*", true), ("*:5", true),
    ] {
      #expect(
        globCouldMatch(Array(pattern.utf8), startingWith: Array("wallet:".utf8)) == expected,
        "\(pattern)")
    }
  }

  /// Redis's `stringmatchlen_impl`, recursion and all.
  static func redis(
    _ pattern: ArraySlice<UInt8>, _ string: ArraySlice<UInt8>, _ nocase: Bool
  ) -> Bool {
    var skip = false
    return match(pattern, string, nocase, &skip, 0)
  }

  private static func match(
    _ pattern: ArraySlice<UInt8>, _ string: ArraySlice<UInt8>, _ nocase: Bool,
    _ skipLonger: inout Bool, _ nesting: Int
  ) -> Bool {
    if nesting > 1000 { return false }
    func lower(_ c: Int) -> Int { c >= 65 && c <= 90 ? c + 32 : c }
    // C's `char` is signed; reading past the end finds the string's terminating NUL.
    func at(_ s: ArraySlice<UInt8>, _ i: Int) -> Int {
      i < s.count ? Int(Int8(bitPattern: s[s.startIndex + i])) : 0
    }
    var p = pattern
    var s = string
    while !p.isEmpty && !s.isEmpty {
      switch at(p, 0) {
      case 42:  // *
        while !p.isEmpty && at(p, 1) == 42 { p = p.dropFirst() }
        if p.count == 1 { return true }
        while !s.isEmpty {
          if match(p.dropFirst(), s, nocase, &skipLonger, nesting + 1) { return true }
          if skipLonger { return false }
          s = s.dropFirst()
        }
        skipLonger = true
        return false
      case 63:  // ?
        s = s.dropFirst()
      case 91:  // [
        p = p.dropFirst()
        let not = at(p, 0) == 94
        if not { p = p.dropFirst() }
        var matched = false
        while true {
          if at(p, 0) == 92 && p.count >= 2 {
            p = p.dropFirst()
            if at(p, 0) == at(s, 0) { matched = true }
          } else if at(p, 0) == 93 {
            break
          } else if p.isEmpty {
            p = pattern[(p.startIndex - 1)...]
            break
          } else if p.count >= 3 && at(p, 1) == 45 {
            var start = at(p, 0)
            var end = at(p, 2)
            var c = at(s, 0)
            if start > end { swap(&start, &end) }
            if nocase {
              start = lower(start)
              end = lower(end)
              c = lower(c)
            }
            p = p.dropFirst(2)
            if c >= start && c <= end { matched = true }
          } else if nocase ? lower(at(p, 0)) == lower(at(s, 0)) : at(p, 0) == at(s, 0) {
            matched = true
          }
          p = p.dropFirst()
        }
        if not { matched.toggle() }
        if !matched { return false }
        s = s.dropFirst()
      default:
        if at(p, 0) == 92 && p.count >= 2 { p = p.dropFirst() }
        if nocase ? lower(at(p, 0)) != lower(at(s, 0)) : at(p, 0) != at(s, 0) { return false }
        s = s.dropFirst()
      }
      p = p.dropFirst()
      if s.isEmpty {
        while at(p, 0) == 42 { p = p.dropFirst() }
        break
      }
    }
    return p.isEmpty && s.isEmpty
  }
}
