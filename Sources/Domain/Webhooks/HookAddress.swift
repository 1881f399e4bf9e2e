import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where a hook may send: https to a public address, unless the admin allows http and private
/// addresses (`serve --hooks-allow-insecure`, for a test deployment). Otherwise a hook would be
/// a way into the server's own network (SSRF): its loopback, the cloud's metadata address, the
/// private ranges.
public struct HookAddressRules: Sendable {
  public var allowInsecure: Bool

  public init(allowInsecure: Bool = false) {
    self.allowInsecure = allowInsecure
  }

  public struct Refusal: Error, Equatable, CustomStringConvertible {
    public let description: String
    /// The address is one of the server's network's (not, say, a name that does not resolve).
    public var inside = false
  }

  /// A URL that may be set: its host and port, as the client will connect.
  public struct Target: Sendable, Equatable {
    public let host: String
    public let port: Int
    public let secure: Bool
  }

  /// Checks `text`'s form (not yet its addresses: `resolve` does, before each connection).
  public func target(of text: String) -> Result<Target, Refusal> {
    guard text.utf8.count <= 2048, let parts = URLComponents(string: text),
      let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty
    else { return .failure(Refusal(description: "the hook's URL does not read")) }
    guard scheme == "https" || (scheme == "http" && allowInsecure) else {
      return .failure(
        Refusal(
          description: scheme == "http"
            ? "a hook's URL must be https (the server was not started with --hooks-allow-insecure)"
            : "a hook's URL must be https"))
    }
    guard parts.user == nil, parts.password == nil else {
      return .failure(Refusal(description: "a hook's URL may not carry a user or password"))
    }
    let port = parts.port ?? (scheme == "https" ? 443 : 80)
    guard (1...65_535).contains(port) else {
      return .failure(Refusal(description: "the hook's port is out of range"))
    }
    let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    if let address = IPAddress(bare), !allowInsecure, !address.isPublic {
      return .failure(
        Refusal(description: "a hook may not send to \(bare), a private address", inside: true))
    }
    return .success(Target(host: bare, port: port, secure: scheme == "https"))
  }

  /// The address to connect to for `target`: its first address, refused if any it resolves to
  /// is private (unless allowed), so that a name cannot be pointed at the inside later; the
  /// caller pins the connection to the address returned (DNS rebinding).
  public func resolve(_ target: Target) -> Result<String, Refusal> {
    if IPAddress(target.host) != nil { return .success(target.host) }
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(target.host, nil, &hints, &list) == 0, let list else {
      return .failure(Refusal(description: "\(target.host) does not resolve"))
    }
    defer { freeaddrinfo(list) }
    var addresses: [IPAddress] = []
    var next: UnsafeMutablePointer<addrinfo>? = list
    while let entry = next {
      if let address = IPAddress(entry.pointee.ai_addr) { addresses.append(address) }
      next = entry.pointee.ai_next
    }
    guard let first = addresses.first else {
      return .failure(Refusal(description: "\(target.host) has no address"))
    }
    if !allowInsecure, let inside = addresses.first(where: { !$0.isPublic }) {
      return .failure(
        Refusal(
          description: "\(target.host) resolves to \(inside.text), a private address",
          inside: true))
    }
    return .success(first.text)
  }
}

/// An IPv4 or IPv6 address, and whether it is on the public internet.
struct IPAddress: Equatable {
  /// 4 or 16 bytes.
  let bytes: [UInt8]

  init?(_ text: String) {
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      bytes = withUnsafeBytes(of: &v4) { Array($0) }
    } else if inet_pton(AF_INET6, text, &v6) == 1 {
      bytes = withUnsafeBytes(of: &v6) { Array($0) }
    } else {
      return nil
    }
  }

  init?(_ address: UnsafeMutablePointer<sockaddr>?) {
    guard let address else { return nil }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
      bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
        withUnsafeBytes(of: a.pointee.sin_addr) { Array($0) }
      }
    case AF_INET6:
      bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
        withUnsafeBytes(of: a.pointee.sin6_addr) { Array($0) }
      }
    default: return nil
    }
  }

  var text: String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    bytes.withUnsafeBytes { raw in
      _ = inet_ntop(
        bytes.count == 4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count))
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Not loopback, private, shared (CGNAT), link-local (the cloud metadata address), multicast,
  /// reserved or unspecified; an IPv6 address carrying an IPv4 one is judged by it.
  var isPublic: Bool {
    if bytes.count == 4 { return Self.isPublic(v4: bytes) }
    let b = bytes
    // ::ffff:a.b.c.d (mapped), 64:ff9b::a.b.c.d (NAT64)
    if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF
      || b[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
    {
      return Self.isPublic(v4: Array(b[12..<16]))
    }
    // 2002::/16 (6to4) carries one in bytes 2…5.
    if b[0] == 0x20 && b[1] == 0x02 { return Self.isPublic(v4: Array(b[2..<6])) }
    if b[0..<15].allSatisfy({ $0 == 0 }) { return false }  // :: and ::1
    if b[0] & 0xFE == 0xFC { return false }  // fc00::/7, unique local
    if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return false }  // fe80::/10, link-local
    if b[0] == 0xFF { return false }  // multicast
    if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return false }  // docs
    return true
  }

  private static func isPublic(v4 b: [UInt8]) -> Bool {
    switch (b[0], b[1]) {
    case (0, _), (10, _), (127, _), (169, 254), (192, 168), (198, 18), (198, 19): return false
    case (100, 64...127), (172, 16...31): return false
    case (192, 0) where b[2] == 0 || b[2] == 2: return false
    case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return false
    case (224..., _): return false  // multicast, reserved, broadcast
    default: return true
    }
  }
}
