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
  var text = cFormat("%.17f", value)
  if text.contains(".") {
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
  }
  return text == "-0" ? "0" : text
}

/// `fixedpoint_d2string(…, 4)`: GEO distances with four decimals, rounded half to even.
func fixedPoint4(_ value: Double) -> String {
  if value == 0 { return "0.0000" }
  let scaled = (value * 10000).rounded(.toNearestOrEven)
  guard scaled.magnitude < 9.2e18 else { return cFormat("%.4f", value) }
  let units = Int64(scaled)
  let whole = units.magnitude / 10000
  let fraction = String(units.magnitude % 10000)
  let sign = units < 0 ? "-" : ""
  return sign + String(whole) + "." + String(repeating: "0", count: 4 - fraction.count) + fraction
}
