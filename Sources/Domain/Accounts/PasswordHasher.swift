import Crypto
import CryptoExtras
import Foundation

/// Hashes passwords with scrypt (swift-crypto's), in a self-describing form
/// `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64), so the cost can rise later and old hashes
/// still verify.
public struct PasswordHasher: Sendable {
  /// log2 of scrypt's N. 14 (N = 16,384, r = 8: 16 MiB and tens of milliseconds a hash) is the
  /// least OWASP lists for scrypt; tests may lower it to run faster.
  public var costLog2: Int
  public var blockSize = 8
  public var parallelism = 1

  public init(costLog2: Int = 14) { self.costLog2 = costLog2 }

  public func hash(_ password: String) throws -> String {
    var salt = [UInt8](repeating: 0, count: 16)
    var generator = SystemRandomNumberGenerator()
    for i in salt.indices { salt[i] = generator.next() }
    let derived = try derive(
      password, salt: salt, costLog2: costLog2, blockSize: blockSize, parallelism: parallelism)
    return [
      "scrypt", "\(costLog2)", "\(blockSize)", "\(parallelism)",
      Data(salt).base64EncodedString(), Data(derived).base64EncodedString(),
    ].joined(separator: "$")
  }

  /// Whether `password` matches `stored`, compared in constant time.
  public func verify(_ password: String, against stored: String) -> Bool {
    let parts = stored.split(separator: "$").map(String.init)
    guard parts.count == 6, parts[0] == "scrypt",
      let cost = Int(parts[1]), (1...20).contains(cost),
      let blockSize = Int(parts[2]), let parallelism = Int(parts[3]),
      let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
      let derived = try? derive(
        password, salt: Array(salt), costLog2: cost, blockSize: blockSize,
        parallelism: parallelism)
    else { return false }
    return constantTimeEqual(derived, Array(expected))
  }

  /// Spends the time a verification would, for an email that has no account: a sign-in then
  /// takes as long whether the email exists or not. It verifies against a stand-in hash of
  /// the same form, so even its allocations (which decide whether scrypt's buffer is given
  /// back to the system and faulted in again) are a real verification's.
  public func verifyNothing(_ password: String) {
    let standIn = [
      "scrypt", "\(costLog2)", "\(blockSize)", "\(parallelism)",
      Data(count: 16).base64EncodedString(), Data(count: 32).base64EncodedString(),
    ].joined(separator: "$")
    _ = verify(password, against: standIn)
  }

  private func derive(
    _ password: String, salt: [UInt8], costLog2: Int, blockSize: Int, parallelism: Int
  ) throws -> [UInt8] {
    let key = try KDF.Scrypt.deriveKey(
      from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << costLog2,
      blockSize: blockSize, parallelism: parallelism)
    return key.withUnsafeBytes { Array($0) }
  }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
  guard a.count == b.count else { return false }
  var difference: UInt8 = 0
  for i in a.indices { difference |= a[i] ^ b[i] }
  return difference == 0
}
