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

  /// A username: 6 random lowercase letters and digits.
  static func username() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<6).map { _ in alphabet.randomElement(using: &generator)! })
  }
}
