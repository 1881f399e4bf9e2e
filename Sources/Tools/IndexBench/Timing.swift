#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// The median, in nanoseconds, of `count` timed calls of `body(i)`, after a warm-up pass.
func medianNanoseconds(_ count: Int, warmup: Int = 200, _ body: (Int) throws -> Void) rethrows
  -> Double
{
  try percentileNanoseconds(count, warmup: warmup, body).median
}

/// The median and 99th percentile, in nanoseconds, of `count` timed calls of `body(i)`.
func percentileNanoseconds(_ count: Int, warmup: Int = 200, _ body: (Int) throws -> Void)
  rethrows -> (median: Double, p99: Double)
{
  for i in 0..<min(warmup, count) { try body(i) }
  var samples = [UInt64](repeating: 0, count: count)
  for i in 0..<count {
    let t0 = now()
    try body(i)
    samples[i] = now() - t0
  }
  samples.sort()
  return (Double(samples[count / 2]), Double(samples[min(count - 1, count * 99 / 100)]))
}

/// Nanoseconds per call, amortized over `count` calls timed together.
func amortizedNanoseconds(_ count: Int, _ body: (Int) throws -> Void) rethrows -> Double {
  let t0 = now()
  for i in 0..<count { try body(i) }
  return Double(now() - t0) / Double(count)
}

/// Defeats dead-code elimination of benchmark results.
@inline(never)
func consume<T>(_ value: T) {}
