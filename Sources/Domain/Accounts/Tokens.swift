import Crypto
import Foundation

/// Secrets handed to clients (session and reset tokens): 32 random bytes, base64url. Only their
/// SHA-256 is stored, so a copy of the database signs nobody in.
enum Tokens {
  static func make() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    return Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  /// What is stored of a token: its SHA-256, in hex.
  static func digest(_ token: String) -> String {
    SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
  }
}

/// Short random texts (slugs) from one random number each, taken from the system's random bytes
/// a pool at a time: a `getrandom` call per character, then per draw, was a bulk import's
/// largest single cost.
public enum RandomText {
  /// `count` characters of `alphabet`, uniformly (alphabet.count^count must fit in 64 bits).
  public static func draw(_ count: Int, from alphabet: [Character]) -> String {
    let base = UInt64(alphabet.count)
    var pooled = PooledRandom()
    var value = UInt64.random(in: 0..<(0..<count).reduce(1) { n, _ in n * base }, using: &pooled)
    var text = ""
    text.reserveCapacity(count)
    for _ in 0..<count {
      text.append(alphabet[Int(value % base)])
      value /= base
    }
    return text
  }
}

/// The system's random numbers, fetched 512 at a time (one `getrandom` call) into a pool shared
/// by every thread; each number is handed out once.
struct PooledRandom: RandomNumberGenerator {
  private static let pool = Pool()

  mutating func next() -> UInt64 { Self.pool.next() }

  /// Behind `NSLock` (a pthread mutex), not the standard library's `Mutex`, whose futex
  /// ThreadSanitizer cannot see: it would report two threads' draws as a race.
  private final class Pool: @unchecked Sendable {
    private let lock = NSLock()
    private var numbers = [UInt64](repeating: 0, count: 512)
    private var taken = 512

    func next() -> UInt64 {
      lock.lock()
      defer { lock.unlock() }
      if taken == numbers.count {
        numbers.withUnsafeMutableBytes { Self.fill($0) }
        taken = 0
      }
      defer { taken += 1 }
      return numbers[taken]
    }

    /// glibc's (2.36 and later) asks the kernel for the whole buffer at once (`getrandom`).
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
      arc4random_buf(buffer.baseAddress!, buffer.count)
    }
  }
}
