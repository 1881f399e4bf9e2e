import NIOCore

/// Redis's `string2ll`: an optional `-` then decimal digits, with no `+`, no spaces and no leading
/// zero (bare `0` aside). Nil for anything else, or when the value overflows. Inlinable, so that
/// other modules' calls are specialised for their collection type.
@inlinable
public func parseRedisInteger(_ text: some Collection<UInt8>) -> Int? {
  var digits = text[...]
  guard let first = digits.first else { return nil }
  if first == UInt8(ascii: "0") { return digits.count == 1 ? 0 : nil }
  let negative = first == UInt8(ascii: "-")
  if negative { digits = digits.dropFirst() }
  guard let lead = digits.first, lead >= UInt8(ascii: "1"), lead <= UInt8(ascii: "9") else {
    return nil
  }
  var value = 0
  for byte in digits {
    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
    let digit = Int(byte - UInt8(ascii: "0"))
    let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
    let (next, overflowAdd) =
      negative
      ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
    if overflowShift || overflowAdd { return nil }
    value = next
  }
  return value
}

/// Redis's `sdssplitargs`: words separated by spaces; "double quotes" with `\n \r \t \b \a \xHH`
/// escapes (any other escaped byte stands for itself); 'single quotes' with only `\'`. A closing
/// quote must end its word. Nil on unbalanced quotes. The line ends at a NUL byte, as the C string
/// Redis splits does.
func splitInlineArguments(_ line: some Collection<UInt8>) -> [[UInt8]]? {
  let bytes = Array(line.prefix { $0 != 0 })
  func at(_ index: Int) -> Unicode.Scalar {
    index < bytes.count ? Unicode.Scalar(bytes[index]) : "\0"
  }
  var words: [[UInt8]] = []
  var index = 0
  while true {
    while isCSpace(at(index)) { index += 1 }
    if at(index) == "\0" { return words }
    var word: [UInt8] = []
    var inDouble = false
    var inSingle = false
    var done = false
    while !done {
      let char = at(index)
      if inDouble {
        if char == "\\", at(index + 1) == "x", let high = hexValue(at(index + 2)),
          let low = hexValue(at(index + 3))
        {
          word.append(high << 4 | low)
          index += 3
        } else if char == "\\", at(index + 1) != "\0" {
          index += 1
          word.append(unescaped(at(index)))
        } else if char == "\"" {
          if at(index + 1) != "\0", !isCSpace(at(index + 1)) { return nil }
          done = true
        } else if char == "\0" {
          return nil
        } else {
          word.append(UInt8(char.value))
        }
      } else if inSingle {
        if char == "\\", at(index + 1) == "'" {
          index += 1
          word.append(UInt8(ascii: "'"))
        } else if char == "'" {
          if at(index + 1) != "\0", !isCSpace(at(index + 1)) { return nil }
          done = true
        } else if char == "\0" {
          return nil
        } else {
          word.append(UInt8(char.value))
        }
      } else {
        switch char {
        case " ", "\n", "\r", "\t", "\0": done = true
        case "\"": inDouble = true
        case "'": inSingle = true
        default: word.append(UInt8(char.value))
        }
      }
      if at(index) != "\0" { index += 1 }
    }
    words.append(word)
  }
}

/// C's `isspace` in the C locale.
private func isCSpace(_ char: Unicode.Scalar) -> Bool {
  char == " " || ("\t"..."\r").contains(char)
}

private func hexValue(_ char: Unicode.Scalar) -> UInt8? {
  switch char {
  case "0"..."9": UInt8(char.value - 48)
  case "a"..."f": UInt8(char.value - 87)
  case "A"..."F": UInt8(char.value - 55)
  default: nil
  }
}

private func unescaped(_ char: Unicode.Scalar) -> UInt8 {
  switch char {
  case "n": 10
  case "r": 13
  case "t": 9
  case "b": 8
  case "a": 7
  default: UInt8(char.value)
  }
}

extension ByteBuffer {
  /// Appends bytes read from a stream to the unparsed rest of it, taking them whole when nothing
  /// is pending, and reclaiming consumed space once it outweighs what is left, so moving bytes
  /// stays amortised O(1).
  mutating func appendStream(_ bytes: ByteBuffer) {
    if readableBytes == 0 {
      self = bytes
      return
    }
    if readerIndex >= readableBytes { discardReadBytes() }
    var bytes = bytes
    writeBuffer(&bytes)
  }
}
