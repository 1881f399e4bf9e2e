/// Redis's glob matching (`stringmatchlen`), for KEYS, SCAN MATCH and CONFIG GET: `*`, `?`,
/// `[abc]`, `[^a-z]`, and `\` to escape.
public func globMatches(
  _ pattern: some Collection<UInt8>, _ string: some Collection<UInt8>,
  ignoringCase: Bool = false
) -> Bool {
  var skipLonger = false
  return globMatch(Array(pattern)[...], Array(string)[...], ignoringCase, &skipLonger)
}

private func globMatch(
  _ pattern: ArraySlice<UInt8>, _ string: ArraySlice<UInt8>, _ nocase: Bool,
  _ skipLonger: inout Bool
) -> Bool {
  var p = pattern
  var s = string
  func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
  func same(_ a: UInt8, _ b: UInt8) -> Bool { nocase ? lower(a) == lower(b) : a == b }
  while let head = p.first, let char = s.first {
    switch head {
    case UInt8(ascii: "*"):
      while p.count > 1 && p[p.startIndex + 1] == UInt8(ascii: "*") { p = p.dropFirst() }
      if p.count == 1 { return true }
      while !s.isEmpty {
        if globMatch(p.dropFirst(), s, nocase, &skipLonger) { return true }
        if skipLonger { return false }
        s = s.dropFirst()
      }
      skipLonger = true
      return false
    case UInt8(ascii: "?"):
      s = s.dropFirst()
    case UInt8(ascii: "["):
      p = p.dropFirst()
      let negate = p.first == UInt8(ascii: "^")
      if negate { p = p.dropFirst() }
      var matched = false
      while true {
        if p.first == UInt8(ascii: "\\") && p.count >= 2 {
          p = p.dropFirst()
          if p.first == char { matched = true }
        } else if p.first == UInt8(ascii: "]") {
          break
        } else if p.isEmpty {
          // An unclosed class: step back so the outer loop's advance lands at the end.
          p = pattern[(p.startIndex - 1)...]
          break
        } else if p.count >= 3 && p[p.startIndex + 1] == UInt8(ascii: "-") {
          var start = p[p.startIndex]
          var end = p[p.startIndex + 2]
          var c = char
          if start > end { swap(&start, &end) }
          if nocase {
            start = lower(start)
            end = lower(end)
            c = lower(c)
          }
          p = p.dropFirst(2)
          if c >= start && c <= end { matched = true }
        } else if same(p[p.startIndex], char) {
          matched = true
        }
        p = p.dropFirst()
      }
      if negate { matched.toggle() }
      if !matched { return false }
      s = s.dropFirst()
    case UInt8(ascii: "\\"):
      if p.count >= 2 { p = p.dropFirst() }
      if !same(p[p.startIndex], char) { return false }
      s = s.dropFirst()
    default:
      if !same(head, char) { return false }
      s = s.dropFirst()
    }
    p = p.dropFirst()
    if s.isEmpty {
      while p.first == UInt8(ascii: "*") { p = p.dropFirst() }
      break
    }
  }
  return p.isEmpty && s.isEmpty
}
