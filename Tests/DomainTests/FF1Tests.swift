import Accounts
import Crypto
import Foundation
import Testing

/// FF1 against NIST's published samples (SP 800-38G, FF1 samples 1 to 8), and as a
/// permutation: every value of a small domain maps to a different one, and decrypting returns
/// what was encrypted.
@Suite("FF1 format-preserving encryption")
struct FF1Tests {
  static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
  static let k128 = "2B7E151628AED2A6ABF7158809CF4F3C"
  static let k192 = k128 + "EF4359D8D580AA4F"
  static let k256 = k192 + "7F036D6F04FC6A94"
  static let t10 = "39383736353433323130"
  static let t11 = "3737373770717273373737"

  @Test(
    "NIST's samples 1 to 8 encrypt to the published ciphertexts and decrypt back",
    arguments: [
      (k128, "", 10, "0123456789", "2433477484"),
      (k128, t10, 10, "0123456789", "6124200773"),
      (k128, t11, 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"),
      (k192, "", 10, "0123456789", "2830668132"),
      (k192, t10, 10, "0123456789", "2496655549"),
      (k192, t11, 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"),
      (k256, "", 10, "0123456789", "6657667009"),
      (k256, t10, 10, "0123456789", "1001623463"),
    ])
  func nistSamples(key: String, tweak: String, radix: Int, plain: String, cipher: String) {
    let ff1 = FF1(key: SymmetricKey(data: Self.bytes(key)), radix: radix, length: plain.count)
    let digits = plain.map { Self.alphabet.firstIndex(of: $0)! }
    let encrypted = ff1.encrypt(digits, tweak: Self.bytes(tweak))
    #expect(String(encrypted.map { Self.alphabet[$0] }) == cipher)
    #expect(ff1.decrypt(encrypted, tweak: Self.bytes(tweak)) == digits)
  }

  @Test("a permutation: the 10,000 four-digit strings map to 10,000 different ones")
  func permutation() {
    let ff1 = FF1(key: SymmetricKey(size: .bits128), radix: 10, length: 4)
    var seen = Set<[Int]>()
    for n in 0..<10_000 {
      let digits = [n / 1000, n / 100 % 10, n / 10 % 10, n % 10]
      let encrypted = ff1.encrypt(digits)
      seen.insert(encrypted)
      #expect(ff1.decrypt(encrypted) == digits)
    }
    #expect(seen.count == 10_000)
  }

  @Test(
    "share codes' and usernames' shapes: random values come back, as digits and as numbers; another key differs"
  )
  func codeShapes() {
    var generator = SystemRandomNumberGenerator()
    for (radix, length) in [(31, 8), (36, 6)] {
      let ff1 = FF1(key: SymmetricKey(size: .bits256), radix: radix, length: length)
      let other = FF1(key: SymmetricKey(size: .bits256), radix: radix, length: length)
      var differs = 0
      for _ in 0..<1000 {
        let digits = (0..<length).map { _ in Int.random(in: 0..<radix, using: &generator) }
        let encrypted = ff1.encrypt(digits)
        #expect(encrypted.count == length && encrypted.allSatisfy { (0..<radix).contains($0) })
        #expect(ff1.decrypt(encrypted) == digits)
        if other.encrypt(digits) != encrypted { differs += 1 }
        // The number form is the digits' value.
        let value = digits.reduce(UInt64(0)) { $0 * UInt64(radix) + UInt64($1) }
        let number = encrypted.reduce(UInt64(0)) { $0 * UInt64(radix) + UInt64($1) }
        #expect(ff1.encrypt(value) == number && ff1.decrypt(number) == value)
      }
      #expect(differs >= 999)
    }
  }

  static func bytes(_ hex: String) -> [UInt8] {
    let characters = Array(hex)
    return stride(from: 0, to: characters.count, by: 2).map {
      UInt8(String(characters[$0...$0 + 1]), radix: 16)!
    }
  }
}
