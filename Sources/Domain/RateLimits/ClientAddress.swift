import Foundation

/// The key that limits per address count on: an IPv4 address as it is, an IPv6 address by its
/// /64 (one subscriber's whole prefix: a host picks any of its 2^64 addresses at will), never
/// the port (a reconnect picks a new one).
public enum ClientAddress {
  public static func key(_ ip: String) -> String {
    var text = ip
    if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
    guard text.contains(":") else { return text }
    var bytes = in6_addr()
    guard inet_pton(AF_INET6, text, &bytes) == 1 else { return text }
    let octets = withUnsafeBytes(of: &bytes) { Array($0) }
    // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is that IPv4 address.
    if octets[0..<10].allSatisfy({ $0 == 0 }) && octets[10] == 0xff && octets[11] == 0xff {
      return octets[12..<16].map(String.init).joined(separator: ".")
    }
    let groups = stride(from: 0, to: 8, by: 2).map {
      String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16)
    }
    return groups.joined(separator: ":") + "::/64"
  }
}
