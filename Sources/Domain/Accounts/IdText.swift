import Crypto
import Foundation

/// A public text made from a row's id (a username from an account's, a share code from a
/// card's): FF1 under a key the store keeps, written in `alphabet`. Unique by construction and,
/// without the key, as hard to guess as a random text; so the store keeps no index of these
/// texts and a new row checks none (a random text's index cost a bulk import a third of its
/// rate: docs/BENCHMARKS.md). Rows made before keep the random text they were given (a nullable
/// column with a partial unique index); a new row whose text one of those already has skips
/// that id.
public struct IdText: Sendable {
  private let cipher: FF1
  /// ASCII letters and digits, as bytes: a start makes a million texts.
  private let alphabet: [UInt8]
  /// How many texts there are: ids from 0 below it have one.
  private let count: UInt64

  /// The texts made under `key` (the store keeps one per purpose: usernames, share codes), in
  /// an ASCII `alphabet`.
  public init(key: Data, alphabet: String, length: Int) {
    let bytes = Array(alphabet.utf8)
    precondition(bytes.allSatisfy { $0 < 0x80 }, "an ASCII alphabet")
    self.alphabet = bytes
    cipher = FF1(key: SymmetricKey(data: key), radix: bytes.count, length: length)
    count = (0..<length).reduce(1) { n, _ in n * UInt64(bytes.count) }
  }

  /// The id's text: `length` characters, most significant first.
  public func text(_ id: Int64) -> String {
    let radix = UInt64(alphabet.count)
    precondition(id >= 0 && UInt64(id) < count, "no text for id \(id)")
    var value = cipher.encrypt(UInt64(id))
    return String(unsafeUninitializedCapacity: cipher.length) { text in
      for i in (0..<cipher.length).reversed() {
        text[i] = alphabet[Int(value % radix)]
        value /= radix
      }
      return cipher.length
    }
  }

  /// The first id from `next` whose text no older row has (`taken`: a random text given before
  /// these texts were made from ids; never one of an id's, which are all distinct), and its text.
  public func firstFree(from next: Int64, taken: (String) throws -> Bool) rethrows -> (
    id: Int64, text: String
  ) {
    var id = next
    var made = text(id)
    while try taken(made) {
      id += 1
      made = text(id)
    }
    return (id, made)
  }
}
