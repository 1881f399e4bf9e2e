import Crypto
import CryptoExtras
import Foundation

/// NIST SP 800-38G's FF1 with AES: a keyed permutation of the strings of `length` digits in
/// `radix` (format-preserving encryption). A share code or username made by encrypting a row's
/// id is unique by construction and, without the key, as hard to guess as a random one; the id
/// comes back by decrypting, so neither text needs an index of its own.
///
/// Each half's value must stay below 2^56 (radix^⌈length/2⌉), so that the round arithmetic fits
/// in 64 bits: 8 digits of radix 31 use 20 bits, 6 of radix 36 use 16.
public struct FF1: Sendable {
  public let radix: Int
  public let length: Int
  private let key: SymmetricKey
  /// Digits in the first half (u) and the second (v).
  private let u: Int
  private let v: Int
  /// Bytes of a half's value in Q (b), and of the round function's output used (d).
  private let b: Int
  private let d: Int

  /// `key` of 16, 24 or 32 bytes. NIST asks for radix^length of at least a million.
  public init(key: SymmetricKey, radix: Int, length: Int) {
    precondition([128, 192, 256].contains(key.bitCount), "FF1 takes an AES key")
    precondition((2...65_536).contains(radix) && length >= 2, "FF1: radix 2...65536, 2 digits")
    self.key = key
    self.radix = radix
    self.length = length
    u = length / 2
    v = length - u
    precondition(Double(v) * log2(Double(radix)) < 56, "FF1: a half must fit in 56 bits")
    let bits = (Double(v) * log2(Double(radix))).rounded(.up)
    b = Int((bits / 8).rounded(.up))
    d = 4 * ((b + 3) / 4) + 4
  }

  /// The permutation of `digits` (each in 0..<radix, most significant first).
  public func encrypt(_ digits: [Int], tweak: [UInt8] = []) -> [Int] {
    precondition(digits.count == length && digits.allSatisfy { (0..<radix).contains($0) })
    var a = number(digits[..<u])
    var b = number(digits[u...])
    let p = header(tweakCount: tweak.count)
    for round in 0..<10 {
      let m = round % 2 == 0 ? u : v
      let modulus = power(m)
      let y = roundValue(round, b, p, tweak, modulus: modulus)
      let c = (a % modulus + y) % modulus
      a = b
      b = c
    }
    return self.digits(a, count: u) + self.digits(b, count: v)
  }

  /// The inverse of `encrypt`.
  public func decrypt(_ digits: [Int], tweak: [UInt8] = []) -> [Int] {
    precondition(digits.count == length && digits.allSatisfy { (0..<radix).contains($0) })
    var a = number(digits[..<u])
    var b = number(digits[u...])
    let p = header(tweakCount: tweak.count)
    for round in (0..<10).reversed() {
      let m = round % 2 == 0 ? u : v
      let modulus = power(m)
      let y = roundValue(round, a, p, tweak, modulus: modulus)
      let c = (b % modulus + modulus - y) % modulus
      b = a
      a = c
    }
    return self.digits(a, count: u) + self.digits(b, count: v)
  }

  /// P: the block that names the parameters.
  private func header(tweakCount: Int) -> [UInt8] {
    [1, 2, 1] + bigEndian(UInt64(radix), bytes: 3) + [10, UInt8(u % 256)]
      + bigEndian(UInt64(length), bytes: 4) + bigEndian(UInt64(tweakCount), bytes: 4)
  }

  /// y mod radix^m for round `round` of the half `half`: the first d bytes of the CBC-MAC of
  /// P ‖ Q, extended by encrypting it xored with 1, 2, … when d is over 16.
  private func roundValue(
    _ round: Int, _ half: UInt64, _ p: [UInt8], _ tweak: [UInt8], modulus: UInt64
  ) -> UInt64 {
    let padding = ((-tweak.count - b - 1) % 16 + 16) % 16
    let q =
      tweak + [UInt8](repeating: 0, count: padding) + [UInt8(round)] + bigEndian(half, bytes: b)
    var r = [UInt8](repeating: 0, count: 16)
    let message = p + q
    for start in stride(from: 0, to: message.count, by: 16) {
      for i in 0..<16 { r[i] ^= message[start + i] }
      permute(&r)
    }
    var s = r
    var j: UInt64 = 1
    while s.count < d {
      var block = r
      let counter = bigEndian(j, bytes: 16)
      for i in 0..<16 { block[i] ^= counter[i] }
      permute(&block)
      s += block
      j += 1
    }
    // NUM(S) mod radix^m, a byte at a time: radix^m < 2^56 keeps each step within 64 bits.
    return s.prefix(d).reduce(0) { ($0 << 8 | UInt64($1)) % modulus }
  }

  private func permute(_ block: inout [UInt8]) {
    // Sizes are fixed above (a 16-byte block, an AES key), so this cannot throw.
    try! AES.permute(&block, key: key)
  }

  private func number(_ digits: ArraySlice<Int>) -> UInt64 {
    digits.reduce(0) { $0 * UInt64(radix) + UInt64($1) }
  }

  private func digits(_ value: UInt64, count: Int) -> [Int] {
    var value = value
    var digits = [Int](repeating: 0, count: count)
    for i in (0..<count).reversed() {
      digits[i] = Int(value % UInt64(radix))
      value /= UInt64(radix)
    }
    return digits
  }

  private func power(_ m: Int) -> UInt64 { (0..<m).reduce(1) { n, _ in n * UInt64(radix) } }

  private func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
    (0..<bytes).reversed().map { i in i >= 8 ? 0 : UInt8(truncatingIfNeeded: value >> (8 * i)) }
  }
}
