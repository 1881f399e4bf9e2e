#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Redis 7.0's `addReplyDouble` text: `%.17g`, with infinities spelled `inf` and `-inf` on every
/// platform. NaN prints as the C library does (`nan` or `-nan` with glibc), as in Redis.
func formatRedisDouble(_ value: Double) -> String {
  if value.isInfinite { return value > 0 ? "inf" : "-inf" }
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { text in
    let count = withVaList([value]) { vsnprintf(text.baseAddress, text.count, "%.17g", $0) }
    return String(
      decoding: UnsafeRawBufferPointer(start: text.baseAddress, count: Int(count)), as: UTF8.self)
  }
}
