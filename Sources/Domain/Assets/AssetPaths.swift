import Foundation

/// Which URLs point into this server's assets (`<publicURL>/a/...`), however they are spelt: the
/// scheme and host in any case, the default port written or not, dot segments and percent
/// escapes in the path. A card may name such a URL only in its one exact form.
struct AssetPaths: Sendable {
  private let scheme: String
  private let host: String
  private let port: Int?
  /// The assets' path, lowercased: `/a`, or `<publicURL's path>/a`.
  private let path: String

  init(publicURL: String) {
    let base = URLComponents(string: publicURL)
    scheme = base?.scheme?.lowercased() ?? ""
    host = Self.hostKey(base?.host)
    port = Self.port(base?.port, scheme: scheme)
    let basePath = base?.path ?? ""
    path = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath).lowercased() + "/a"
  }

  func contains(_ value: String) -> Bool {
    guard let url = URLComponents(string: value), let scheme = url.scheme?.lowercased(),
      scheme == self.scheme, Self.hostKey(url.host) == host,
      Self.port(url.port, scheme: scheme) == port
    else { return false }
    let standardized = URL(string: value)?.standardized.path ?? url.path
    let decoded = (standardized.removingPercentEncoding ?? standardized).lowercased()
    return decoded == path || decoded.hasPrefix(path + "/")
  }

  private static func hostKey(_ host: String?) -> String {
    let host = (host ?? "").lowercased()
    return host.hasSuffix(".") ? String(host.dropLast()) : host
  }

  private static func port(_ port: Int?, scheme: String) -> Int? {
    port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
  }
}
