import Crypto
import Foundation

/// The `CardAtlas-Signature` header, as Stripe signs its webhooks: `t=<unix seconds>,v1=<hex>`,
/// where the hex is HMAC-SHA256 under the hook's secret of `<t>.<body>`. The time in the signed
/// text lets a receiver refuse a replayed request (Stripe's tolerance is five minutes).
public enum HookSignature {
  public static let header = "CardAtlas-Signature"

  public static func sign(_ body: some DataProtocol, secret: String, time: Int) -> String {
    "t=\(time),v1=\(hex(mac(body, secret: secret, time: time)))"
  }

  /// Whether `header` signs `body` under `secret`, made within `tolerance` seconds of `now`.
  public static func verify(
    _ header: String, body: some DataProtocol, secret: String, now: Int, tolerance: Int = 300
  ) -> Bool {
    var time: Int?
    var signatures: [String] = []
    for part in header.split(separator: ",") {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2 else { continue }
      if pair[0] == "t" {
        time = Int(pair[1])
      } else if pair[0] == "v1" {
        signatures.append(pair[1])
      }
    }
    guard let time, abs(now - time) <= tolerance else { return false }
    let key = SymmetricKey(data: Data(secret.utf8))
    let signed = Data("\(time).".utf8) + Data(body)
    // HMAC's own check compares in constant time.
    return signatures.contains { given in
      guard let bytes = unhex(given) else { return false }
      return HMAC<SHA256>.isValidAuthenticationCode(bytes, authenticating: signed, using: key)
    }
  }

  private static func mac(_ body: some DataProtocol, secret: String, time: Int)
    -> HashedAuthenticationCode<SHA256>
  {
    var hmac = HMAC<SHA256>(key: SymmetricKey(data: Data(secret.utf8)))
    hmac.update(data: Data("\(time).".utf8))
    hmac.update(data: body)
    return hmac.finalize()
  }

  private static func hex(_ code: some Sequence<UInt8>) -> String {
    code.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  private static func unhex(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count == 64 else { return nil }
    var bytes: [UInt8] = []
    for i in stride(from: 0, to: 64, by: 2) {
      guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else {
        return nil
      }
      bytes.append(byte)
    }
    return bytes
  }
}
