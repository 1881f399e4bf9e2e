import RESP

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// C's printf for one double, as Redis formats numbers in replies and errors.
func cFormat(_ format: String, _ value: Double) -> String {
  withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { text in
    let count = withVaList([value]) { vsnprintf(text.baseAddress, text.count, format, $0) }
    return String(
      decoding: UnsafeRawBufferPointer(start: text.baseAddress, count: Int(count)), as: UTF8.self)
  }
}

/// `addReplyHumanLongDouble`'s text (`ld2string` in LD_STR_HUMAN mode): 17 decimals with the
/// trailing zeros and point removed, and "-0" written "0".
func humanDouble(_ value: Double) -> String {
  withHumanDouble(value) { String(decoding: $0, as: UTF8.self) }
}

/// `humanDouble`'s text, made without a String or printf where the digits can be computed
/// exactly in 128 bits (every coordinate from about 4e-6 to 2^64): GEO replies print two per
/// member, and printf's were most of a WITHCOORD reply's cost.
func withHumanDouble<R>(_ value: Double, _ body: (UnsafeRawBufferPointer) -> R) -> R {
  guard let (negative, whole, fraction) = exactDecimals17(value) else {
    var text = cFormat("%.17f", value)
    if text.contains(".") {
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
    }
    if text == "-0" { text = "0" }
    return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
  }
  return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { out in
    var n = 0
    if negative && (whole != 0 || fraction != 0) {
      out[0] = UInt8(ascii: "-")
      n = 1
    }
    n = writeDecimal(whole, into: UnsafeMutableRawBufferPointer(out), at: n)
    if fraction != 0 {
      out[n] = UInt8(ascii: ".")
      var digits = fraction
      var count = 17
      while digits % 10 == 0 {
        digits /= 10
        count -= 1
      }
      for i in stride(from: n + count, to: n, by: -1) {
        out[i] = UInt8(truncatingIfNeeded: digits % 10) + UInt8(ascii: "0")
        digits /= 10
      }
      n += count + 1
    }
    return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[..<n])))
  }
}

/// printf's `%.17f` of `value` as sign, whole part and 17 decimals (an integer below 10^17),
/// rounded as glibc rounds (to nearest, ties to even, from the exact binary value); nil when
/// that needs more than 128 bits or the whole part exceeds 64.
private func exactDecimals17(_ value: Double) -> (Bool, UInt64, UInt64)? {
  guard value.isFinite else { return nil }
  let negative = value.sign == .minus
  if value == 0 { return (negative, 0, 0) }
  let magnitude = value.magnitude
  guard magnitude < 0x1p64 else { return nil }
  // magnitude = significand × 2^-shift, the significand an integer of at most 53 bits.
  let significand = magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
  let shift = 52 - Int(magnitude.exponent)
  if shift <= 0 { return (negative, significand << UInt64(-shift), 0) }
  guard shift <= 71 else { return nil }
  let whole = shift >= 64 ? 0 : significand >> UInt64(shift)
  let bits = UInt128(significand) & ((UInt128(1) << shift) - 1)
  let scaled = bits * 100_000_000_000_000_000
  var fraction = UInt64(scaled >> shift)
  let rest = scaled & ((UInt128(1) << shift) - 1)
  let half = UInt128(1) << (shift - 1)
  if rest > half || (rest == half && fraction & 1 == 1) { fraction += 1 }
  if fraction == 100_000_000_000_000_000 { return (negative, whole + 1, 0) }
  return (negative, whole, fraction)
}

/// `fixedpoint_d2string(…, 4)`: GEO distances with four decimals, rounded half to even.
func fixedPoint4(_ value: Double) -> String {
  withFixedPoint4(value) { String(decoding: $0, as: UTF8.self) }
}

func withFixedPoint4<R>(_ value: Double, _ body: (UnsafeRawBufferPointer) -> R) -> R {
  let scaled = (value * 10000).rounded(.toNearestOrEven)
  guard value != 0, scaled.magnitude < 9.2e18 else {
    let text = value == 0 ? "0.0000" : cFormat("%.4f", value)
    return Array(text.utf8).withUnsafeBytes(body)
  }
  let units = Int64(scaled)
  return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { out in
    var n = 0
    if units < 0 {
      out[0] = UInt8(ascii: "-")
      n = 1
    }
    n = writeDecimal(units.magnitude / 10000, into: UnsafeMutableRawBufferPointer(out), at: n)
    out[n] = UInt8(ascii: ".")
    var fraction = units.magnitude % 10000
    for i in stride(from: n + 4, to: n, by: -1) {
      out[i] = UInt8(truncatingIfNeeded: fraction % 10) + UInt8(ascii: "0")
      fraction /= 10
    }
    n += 5
    return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[..<n])))
  }
}
