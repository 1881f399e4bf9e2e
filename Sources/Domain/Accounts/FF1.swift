import Crypto
import CryptoExtras
import Foundation

/// NIST SP 800-38G's FF1 with AES: a keyed permutation of the strings of `length` digits in
/// `radix` (format-preserving encryption). A share code or username made by encrypting a row's
/// id is unique by construction and, without the key, as hard to guess as a random one; the id
/// comes back by decrypting, so neither text needs an index of its own.
///
/// Each half's value must stay below 2^56 (radix^⌈length/2⌉), so that the round arithmetic fits
/// in 64 bits and a round's input fits in one block: 8 digits of radix 31 use 20 bits, 6 of
/// radix 36 use 16. Blocks are SIMD values, not arrays: a round is one AES call and no
/// allocation (1.2 µs an encryption of 8 digits, where arrays made it 5.2).
public struct FF1: Sendable {
  typealias Block = SIMD16<UInt8>

  public let radix: Int
  public let length: Int
  private let key: SymmetricKey
  /// Digits in the first half (u) and the second (v), and radix^u, radix^v.
  private let u: Int
  private let v: Int
  private let uModulus: UInt64
  private let vModulus: UInt64
  /// Bytes of a half's value in Q (b), and of the round function's output used (d ≤ 16).
  private let b: Int
  private let d: Int
  /// With no tweak, the CBC-MAC state before Q's last block, and that block's constant part.
  private let untweaked: (state: Block, last: Block)

  /// `key` of 16, 24 or 32 bytes. NIST asks for radix^length of at least a million.
  public init(key: SymmetricKey, radix: Int, length: Int) {
    precondition([128, 192, 256].contains(key.bitCount), "FF1 takes an AES key")
    precondition((2...65_536).contains(radix) && length >= 2, "FF1: radix 2...65536, 2 digits")
    let u = length / 2
    let v = length - u
    precondition(Double(v) * log2(Double(radix)) < 56, "FF1: a half must fit in 56 bits")
    let b = Int(((Double(v) * log2(Double(radix))).rounded(.up) / 8).rounded(.up))
    self.key = key
    self.radix = radix
    self.length = length
    self.u = u
    self.v = v
    uModulus = Self.power(UInt64(radix), u)
    vModulus = Self.power(UInt64(radix), v)
    self.b = b
    d = 4 * ((b + 3) / 4) + 4
    untweaked = Self.macPrefix(tweak: [], radix: radix, u: u, length: length, b: b, key: key)
  }

  /// The permutation of `digits` (each in 0..<radix, most significant first).
  public func encrypt(_ digits: [Int], tweak: [UInt8] = []) -> [Int] {
    let (a, b) = encrypt(halves(digits), tweak: tweak)
    return self.digits(a, count: u) + self.digits(b, count: v)
  }

  /// The inverse of `encrypt`.
  public func decrypt(_ digits: [Int], tweak: [UInt8] = []) -> [Int] {
    let (a, b) = decrypt(halves(digits), tweak: tweak)
    return self.digits(a, count: u) + self.digits(b, count: v)
  }

  /// The permutation of the numbers below radix^length (the digits' value; radix^length must
  /// fit in 64 bits).
  public func encrypt(_ value: UInt64, tweak: [UInt8] = []) -> UInt64 {
    let (a, b) = encrypt((value / vModulus, value % vModulus), tweak: tweak)
    return a * vModulus + b
  }

  /// The inverse of `encrypt(_:tweak:)`.
  public func decrypt(_ value: UInt64, tweak: [UInt8] = []) -> UInt64 {
    let (a, b) = decrypt((value / vModulus, value % vModulus), tweak: tweak)
    return a * vModulus + b
  }

  private func encrypt(_ halves: (UInt64, UInt64), tweak: [UInt8]) -> (UInt64, UInt64) {
    let prefix = self.prefix(tweak)
    var (a, b) = halves
    for round in 0..<10 {
      let modulus = round % 2 == 0 ? uModulus : vModulus
      let c = (a + y(round, b, prefix, modulus: modulus)) % modulus
      a = b
      b = c
    }
    return (a, b)
  }

  private func decrypt(_ halves: (UInt64, UInt64), tweak: [UInt8]) -> (UInt64, UInt64) {
    let prefix = self.prefix(tweak)
    var (a, b) = halves
    for round in (0..<10).reversed() {
      let modulus = round % 2 == 0 ? uModulus : vModulus
      let c = (b + modulus - y(round, a, prefix, modulus: modulus)) % modulus
      b = a
      a = c
    }
    return (a, b)
  }

  /// y mod radix^m for a round: the first d bytes of the CBC-MAC of P ‖ Q, whose last block
  /// alone holds the round and the half (b ≤ 7 bytes).
  private func y(
    _ round: Int, _ half: UInt64, _ prefix: (state: Block, last: Block), modulus: UInt64
  ) -> UInt64 {
    var last = prefix.last
    last[15 - b] = UInt8(round)
    for i in 0..<b { last[15 - i] = UInt8(truncatingIfNeeded: half >> (8 * i)) }
    let r = Self.permute(prefix.state ^ last, key)
    // NUM(S) mod radix^m. S of at most 8 bytes (share codes' and usernames') is one 64-bit
    // number, so one division; longer, a byte at a time (radix^m < 2^56 keeps each step within
    // 64 bits). A division a byte was most of an encryption's time.
    var y: UInt64 = 0
    if d <= 8 {
      for i in 0..<d { y = y << 8 | UInt64(r[i]) }
      return y % modulus
    }
    for i in 0..<d { y = (y << 8 | UInt64(r[i])) % modulus }
    return y
  }

  private func prefix(_ tweak: [UInt8]) -> (state: Block, last: Block) {
    tweak.isEmpty
      ? untweaked
      : Self.macPrefix(tweak: tweak, radix: radix, u: u, length: length, b: b, key: key)
  }

  /// The CBC-MAC state after P ‖ Q's blocks but the last, and Q's last block without the round
  /// and the half (the tweak's tail and zeros).
  private static func macPrefix(
    tweak: [UInt8], radix: Int, u: Int, length: Int, b: Int, key: SymmetricKey
  ) -> (state: Block, last: Block) {
    let padding = ((-tweak.count - b - 1) % 16 + 16) % 16
    let q = tweak + [UInt8](repeating: 0, count: padding + 1 + b)
    let p: [UInt8] =
      [1, 2, 1] + bigEndian(UInt64(radix), bytes: 3) + [10, UInt8(u % 256)]
      + bigEndian(UInt64(length), bytes: 4) + bigEndian(UInt64(tweak.count), bytes: 4)
    let message = p + q
    var state = Block()
    for start in stride(from: 0, to: message.count - 16, by: 16) {
      state = permute(state ^ block(message[start..<start + 16]), key)
    }
    return (state, block(message.suffix(16)))
  }

  private static func permute(_ block: Block, _ key: SymmetricKey) -> Block {
    var block = block
    withUnsafeMutableBytes(of: &block) { bytes in
      var bytes = bytes
      // A 16-byte block and an AES key (checked above): this cannot throw.
      try! AES.permute(&bytes, key: key)
    }
    return block
  }

  private static func block(_ bytes: ArraySlice<UInt8>) -> Block {
    var block = Block()
    for (i, byte) in bytes.enumerated() { block[i] = byte }
    return block
  }

  private func halves(_ digits: [Int]) -> (UInt64, UInt64) {
    precondition(digits.count == length && digits.allSatisfy { (0..<radix).contains($0) })
    let base = UInt64(radix)
    let number = { (part: ArraySlice<Int>) in part.reduce(UInt64(0)) { $0 * base + UInt64($1) } }
    return (number(digits[..<u]), number(digits[u...]))
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

  private static func power(_ base: UInt64, _ m: Int) -> UInt64 {
    (0..<m).reduce(1) { n, _ in n * base }
  }

  private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
    (0..<bytes).reversed().map { i in i >= 8 ? 0 : UInt8(truncatingIfNeeded: value >> (8 * i)) }
  }
}
