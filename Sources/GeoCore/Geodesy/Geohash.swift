/// The standard base32 geohash (geohash.org): bits alternate longitude first, halving
/// -180...180 and -90...90, five bits per character.
///
/// A cell includes its western and southern edges; a value on a halving line goes to the
/// upper half, and 180 / 90 themselves fall in the last cell so every valid coordinate has one.
public enum Geohash {
  /// The 32 characters, in value order (no a, i, l, o).
  public static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")

  /// The longest hash supported: 60 bits, about 3.7 cm × 1.9 cm at the equator.
  public static let maximumPrecision = 12

  /// The hash of `precision` characters of the cell that contains the point.
  ///
  /// - Precondition: `precision` is 1...12; the coordinate is valid.
  public static func encode(longitude: Double, latitude: Double, precision: Int) -> String {
    precondition((1...maximumPrecision).contains(precision), "precision must be 1...12")
    let (lonBits, latBits) = bitCounts(precision)
    let x = cellIndex(longitude, from: -180, to: 180, bits: lonBits)
    let y = cellIndex(latitude, from: -90, to: 90, bits: latBits)
    return string(x: x, y: y, precision: precision)
  }

  /// The cell a hash names, or nil when it is empty, longer than 12 characters or has a
  /// character outside the alphabet (upper case is accepted). Its `center` is the usual decoded
  /// point.
  public static func decode(_ hash: String) -> LonLatRect? {
    guard let (x, y, precision) = cell(hash) else { return nil }
    let (lonBits, latBits) = bitCounts(precision)
    let width = 360 / Double(UInt64(1) << lonBits)
    let height = 180 / Double(UInt64(1) << latBits)
    return LonLatRect(
      minLongitude: -180 + Double(x) * width, minLatitude: -90 + Double(y) * height,
      maxLongitude: -180 + Double(x + 1) * width, maxLatitude: -90 + Double(y + 1) * height)
  }

  /// Longitude and latitude bits in a hash of `precision` characters; longitude gets the odd one.
  static func bitCounts(_ precision: Int) -> (longitude: Int, latitude: Int) {
    let bits = 5 * precision
    return ((bits + 1) / 2, bits / 2)
  }

  /// The cell number along one axis by repeated halving, as the standard algorithm does; the
  /// midpoints are exact binary fractions, so no rounding can move a point to the wrong side.
  static func cellIndex(_ value: Double, from low: Double, to high: Double, bits: Int) -> UInt64 {
    var low = low
    var high = high
    var index: UInt64 = 0
    for _ in 0..<bits {
      let mid = (low + high) / 2
      index <<= 1
      if value >= mid {
        index |= 1
        low = mid
      } else {
        high = mid
      }
    }
    return index
  }

  /// The cell numbers along each axis and the precision, or nil for an invalid hash.
  static func cell(_ hash: String) -> (x: UInt64, y: UInt64, precision: Int)? {
    guard (1...maximumPrecision).contains(hash.count) else { return nil }
    var bits: UInt64 = 0
    for character in hash.lowercased() {
      guard let value = alphabet.firstIndex(of: character) else { return nil }
      bits = bits << 5 | UInt64(value)
    }
    var x: UInt64 = 0
    var y: UInt64 = 0
    for position in stride(from: 5 * hash.count - 1, through: 0, by: -1) {
      let bit = bits >> UInt64(position) & 1
      // Counting from the most significant bit, even positions are longitude.
      if (5 * hash.count - 1 - position) % 2 == 0 { x = x << 1 | bit } else { y = y << 1 | bit }
    }
    return (x, y, hash.count)
  }

  /// The hash of the cell with the given numbers, interleaving longitude first.
  static func string(x: UInt64, y: UInt64, precision: Int) -> String {
    let (lonBits, latBits) = bitCounts(precision)
    var bits: UInt64 = 0
    var xLeft = lonBits
    var yLeft = latBits
    for i in 0..<(5 * precision) {
      if i % 2 == 0 {
        xLeft -= 1
        bits = bits << 1 | (x >> UInt64(xLeft) & 1)
      } else {
        yLeft -= 1
        bits = bits << 1 | (y >> UInt64(yLeft) & 1)
      }
    }
    var characters: [Character] = []
    for i in stride(from: precision - 1, through: 0, by: -1) {
      characters.append(alphabet[Int(bits >> UInt64(5 * i) & 31)])
    }
    return String(characters)
  }
}
