/// Position along a Hilbert curve over a 2^32 × 2^32 grid. Sorting items by it puts items that
/// are near on the map near in memory, which is what makes the packed tree's nodes tight. The
/// branch-free parallel-prefix method of "Fast Hilbert curve generation" (as flatbush uses it for
/// 16 bits), with one more stage for 32 bits: a world-wide grid needs metre-sized cells, or the
/// points of a dense city share cells and fall out of order.
@inline(__always)
func hilbertIndex(x: UInt32, y: UInt32) -> UInt64 {
  let m: UInt64 = 0xFFFF_FFFF
  let x = UInt64(x)
  let y = UInt64(y)
  var a = x ^ y
  var b = m ^ a
  var c = m ^ (x | y)
  var d = x & (y ^ m)

  var nextA = a | (b >> 1)
  var nextB = (a >> 1) ^ a
  var nextC = ((c >> 1) ^ (b & (d >> 1))) ^ c
  var nextD = ((a & (c >> 1)) ^ (d >> 1)) ^ d

  for shift: UInt64 in [2, 4, 8] {
    a = nextA
    b = nextB
    c = nextC
    d = nextD
    nextA = (a & (a >> shift)) ^ (b & (b >> shift))
    nextB = (a & (b >> shift)) ^ (b & ((a ^ b) >> shift))
    nextC ^= (a & (c >> shift)) ^ (b & (d >> shift))
    nextD ^= (b & (c >> shift)) ^ ((a ^ b) & (d >> shift))
  }

  a = nextA
  b = nextB
  c = nextC
  d = nextD
  nextC ^= (a & (c >> 16)) ^ (b & (d >> 16))
  nextD ^= (b & (c >> 16)) ^ ((a ^ b) & (d >> 16))

  a = nextC ^ (nextC >> 1)
  b = nextD ^ (nextD >> 1)

  let i0 = x ^ y
  let i1 = b | (m ^ (i0 | a))
  return (spread(i1) << 1) | spread(i0)
}

/// Spreads the low 32 bits of `v` to the even bits of the result.
@inline(__always)
private func spread(_ v: UInt64) -> UInt64 {
  var v = v & 0xFFFF_FFFF
  v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
  v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
  v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F
  v = (v | (v << 2)) & 0x3333_3333_3333_3333
  v = (v | (v << 1)) & 0x5555_5555_5555_5555
  return v
}

/// The Hilbert position of a longitude/latitude on a grid of 2^32 steps per axis.
@inline(__always)
func hilbertIndex(longitude: Double, latitude: Double) -> UInt64 {
  let steps = Double(UInt32.max)
  let x = ((longitude + 180) / 360 * steps).rounded()
  let y = ((latitude + 90) / 180 * steps).rounded()
  return hilbertIndex(x: UInt32(min(max(x, 0), steps)), y: UInt32(min(max(y, 0), steps)))
}

/// Sorts in place with a least-significant-digit radix sort, 16 bits a pass: a few times faster
/// than a comparison sort on the million keys of a bulk build.
func radixSort(_ keys: inout [UInt64]) {
  let n = keys.count
  guard n > 1 else { return }
  var other = [UInt64](repeating: 0, count: n)
  var counts = [Int](repeating: 0, count: 1 << 16)
  for pass in 0..<4 {
    let shift = UInt64(pass * 16)
    keys.withUnsafeBufferPointer { src in
      other.withUnsafeMutableBufferPointer { dst in
        counts.withUnsafeMutableBufferPointer { c in
          for i in 0..<c.count { c[i] = 0 }
          for k in src { c[Int((k >> shift) & 0xFFFF)] += 1 }
          var total = 0
          for i in 0..<c.count {
            let v = c[i]
            c[i] = total
            total += v
          }
          for k in src {
            let digit = Int((k >> shift) & 0xFFFF)
            dst[c[digit]] = k
            c[digit] += 1
          }
        }
      }
    }
    swap(&keys, &other)
  }
}
