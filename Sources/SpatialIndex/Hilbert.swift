/// Position along a Hilbert curve over a 2^16 × 2^16 grid. Sorting items by it puts items that
/// are near on the map near in memory, which is what makes the packed tree's nodes tight.
/// (The branch-free method of "Fast Hilbert curve generation", as flatbush uses it.)
@inline(__always)
func hilbertIndex(x: UInt32, y: UInt32) -> UInt32 {
  var a = x ^ y
  var b = 0xFFFF ^ a
  var c = 0xFFFF ^ (x | y)
  var d = x & (y ^ 0xFFFF)

  var A = a | (b >> 1)
  var B = (a >> 1) ^ a
  var C = ((c >> 1) ^ (b & (d >> 1))) ^ c
  var D = ((a & (c >> 1)) ^ (d >> 1)) ^ d

  a = A; b = B; c = C; d = D
  A = (a & (a >> 2)) ^ (b & (b >> 2))
  B = (a & (b >> 2)) ^ (b & ((a ^ b) >> 2))
  C ^= (a & (c >> 2)) ^ (b & (d >> 2))
  D ^= (b & (c >> 2)) ^ ((a ^ b) & (d >> 2))

  a = A; b = B; c = C; d = D
  A = (a & (a >> 4)) ^ (b & (b >> 4))
  B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4))
  C ^= (a & (c >> 4)) ^ (b & (d >> 4))
  D ^= (b & (c >> 4)) ^ ((a ^ b) & (d >> 4))

  a = A; b = B; c = C; d = D
  C ^= (a & (c >> 8)) ^ (b & (d >> 8))
  D ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8))

  a = C ^ (C >> 1)
  b = D ^ (D >> 1)

  var i0 = x ^ y
  var i1 = b | (0xFFFF ^ (i0 | a))

  i0 = (i0 | (i0 << 8)) & 0x00FF_00FF
  i0 = (i0 | (i0 << 4)) & 0x0F0F_0F0F
  i0 = (i0 | (i0 << 2)) & 0x3333_3333
  i0 = (i0 | (i0 << 1)) & 0x5555_5555

  i1 = (i1 | (i1 << 8)) & 0x00FF_00FF
  i1 = (i1 | (i1 << 4)) & 0x0F0F_0F0F
  i1 = (i1 | (i1 << 2)) & 0x3333_3333
  i1 = (i1 | (i1 << 1)) & 0x5555_5555

  return (i1 << 1) | i0
}

/// The Hilbert position of a longitude/latitude, on a grid of 65,536 steps per axis.
@inline(__always)
func hilbertIndex(longitude: Double, latitude: Double) -> UInt32 {
  let x = UInt32(((longitude + 180) / 360 * 65535).rounded())
  let y = UInt32(((latitude + 90) / 180 * 65535).rounded())
  return hilbertIndex(x: min(x, 65535), y: min(y, 65535))
}
