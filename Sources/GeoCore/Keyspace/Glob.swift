/// Redis's glob matching (`stringmatchlen`), for KEYS, SCAN MATCH and CONFIG GET: `*`, `?`,
/// `[abc]`, `[^a-z]`, and `\` to escape.
///
/// Iterative, so no pattern can exhaust the stack: every element but `*` takes exactly one
/// byte, so on a mismatch only the last `*` needs to take one more byte and the match go on
/// from just after it (what Redis's recursion, cut short by `skipLongerMatches`, comes to), and
/// the time is at most pattern × string. Redis also gives up on a pattern after its 1,000th
/// nested `*` (CVE-2022-36021): a `*` followed by more pattern recurses, so a pattern with more
/// than 1,000 of them matches nothing, and neither does it here.
public func globMatches(
  _ pattern: some Collection<UInt8>, _ string: some Collection<UInt8>,
  ignoringCase: Bool = false
) -> Bool {
  Array(pattern).withUnsafeBufferPointer { pattern in
    Array(string).withUnsafeBufferPointer { string in
      globMatch(pattern, string, ignoringCase)
    }
  }
}

/// Redis's nesting limit: `stringmatchlen_impl` returns no match when called this deep.
private let maximumNesting = 1000

private func globMatch(
  _ pattern: UnsafeBufferPointer<UInt8>, _ string: UnsafeBufferPointer<UInt8>, _ nocase: Bool
) -> Bool {
  // Redis's loop runs only while both are left: an empty string matches the empty pattern
  // alone, `*` included.
  guard !string.isEmpty else { return pattern.isEmpty }
  let star = UInt8(ascii: "*")
  var p = 0
  var s = 0
  // Just after the last `*` met, and the byte of the string its match would end at next.
  var resume = -1
  var resumeAt = 0
  var nesting = 0
  while s < string.count {
    if p < pattern.count && pattern[p] == star {
      while p + 1 < pattern.count && pattern[p + 1] == star { p += 1 }
      if p + 1 == pattern.count { return true }
      nesting += 1
      if nesting > maximumNesting { return false }
      p += 1
      resume = p
      resumeAt = s
      continue
    }
    if p < pattern.count {
      let (matched, next) = element(pattern, p, string[s], nocase)
      if matched {
        p = next
        s += 1
        continue
      }
    }
    // The pattern ran out or an element failed: the last `*` takes one more byte.
    guard resume >= 0 else { return false }
    resumeAt += 1
    s = resumeAt
    p = resume
  }
  // The string is used up: only stars may be left. (Had the last `*` taken more bytes, the
  // pattern after it would have had fewer to match, so nothing is retried.)
  while p < pattern.count && pattern[p] == star { p += 1 }
  return p == pattern.count
}

/// Whether the pattern's element at `p` (not a `*`) matches `char`, and where the next element
/// starts: read as `stringmatchlen` reads it, quirks included. An unclosed `[` takes the rest of
/// the pattern; `a-z` compares bytes as C's signed `char`s; `\` in a class ignores the case.
@inline(__always)
private func element(
  _ pattern: UnsafeBufferPointer<UInt8>, _ p: Int, _ char: UInt8, _ nocase: Bool
) -> (Bool, Int) {
  func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
  func same(_ a: UInt8, _ b: UInt8) -> Bool { nocase ? lower(a) == lower(b) : a == b }
  let end = pattern.count
  switch pattern[p] {
  case UInt8(ascii: "?"):
    return (true, p + 1)
  case UInt8(ascii: "["):
    var i = p + 1
    let negate = i < end && pattern[i] == UInt8(ascii: "^")
    if negate { i += 1 }
    var matched = false
    while true {
      if i < end && pattern[i] == UInt8(ascii: "\\") && end - i >= 2 {
        i += 1
        if pattern[i] == char { matched = true }
      } else if i < end && pattern[i] == UInt8(ascii: "]") {
        break
      } else if i == end {
        // Unclosed: the class ends with the pattern.
        return (matched != negate, end)
      } else if end - i >= 3 && pattern[i + 1] == UInt8(ascii: "-") {
        var low = Int8(bitPattern: pattern[i])
        var high = Int8(bitPattern: pattern[i + 2])
        var c = Int8(bitPattern: char)
        if low > high { swap(&low, &high) }
        if nocase {
          low = Int8(bitPattern: lower(UInt8(bitPattern: low)))
          high = Int8(bitPattern: lower(UInt8(bitPattern: high)))
          c = Int8(bitPattern: lower(char))
        }
        i += 2
        if c >= low && c <= high { matched = true }
      } else if same(pattern[i], char) {
        matched = true
      }
      i += 1
    }
    return (matched != negate, i + 1)
  case UInt8(ascii: "\\") where end - p >= 2:
    return (same(pattern[p + 1], char), p + 2)
  default:
    return (same(pattern[p], char), p + 1)
  }
}

/// Whether the pattern could match some string that begins with `prefix` (case counts): the
/// pattern read as an automaton over its elements, run on the prefix; a state left alive can
/// still reach a match. Errs only towards true (a class that matches no byte counts as alive),
/// so it can guard a namespace: pub/sub refuses patterns that could reach an account's channels.
public func globCouldMatch(
  _ pattern: some Collection<UInt8>, startingWith prefix: some Sequence<UInt8>
)
  -> Bool
{
  Array(pattern).withUnsafeBufferPointer { pattern in
    let star = UInt8(ascii: "*")
    // Positions in the pattern a match may be at; a `*` may also match nothing.
    func closure(_ positions: Set<Int>) -> Set<Int> {
      var all = positions
      var work = Array(positions)
      while let p = work.popLast() {
        if p < pattern.count && pattern[p] == star && all.insert(p + 1).inserted {
          work.append(p + 1)
        }
      }
      return all
    }
    var states = closure([0])
    for byte in prefix {
      var next = Set<Int>()
      for p in states where p < pattern.count {
        if pattern[p] == star {
          next.insert(p)
        } else {
          let (matched, after) = element(pattern, p, byte, false)
          if matched { next.insert(after) }
        }
      }
      states = closure(next)
      if states.isEmpty { return false }
    }
    return true
  }
}
