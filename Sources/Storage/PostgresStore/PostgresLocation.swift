import Foundation

/// Where the shared store is: a `postgresql://user[:password]@host[:port][,host[:port]…]/database`
/// URL, as libpq reads one. Several hosts name a primary and its standbys: the store connects to
/// the first that takes writes, so that after a failover the promoted standby is found.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
  public struct Host: Sendable, Equatable {
    public var name: String
    public var port: Int

    public init(name: String, port: Int) {
      self.name = name
      self.port = port
    }
  }

  public enum TLS: String, Sendable {
    case disable, prefer, require
  }

  public var hosts: [Host]
  public var username: String
  public var password: String?
  public var database: String
  public var tls: TLS

  public struct Invalid: Error, CustomStringConvertible {
    public let description: String
  }

  /// Reads a URL; `sslmode` (disable, prefer, require) is the only parameter taken.
  public init(url: String) throws {
    func invalid(_ why: String) -> Invalid {
      Invalid(description: "invalid PostgreSQL URL: \(why)")
    }
    var rest = Substring(url)
    guard let scheme = ["postgresql://", "postgres://"].first(where: { rest.hasPrefix($0) }) else {
      throw invalid("it must start with postgresql://")
    }
    rest = rest.dropFirst(scheme.count)
    var query = Substring("")
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    guard let slash = rest.firstIndex(of: "/") else { throw invalid("it names no database") }
    let database = rest[rest.index(after: slash)...].removingPercentEncoding ?? ""
    guard !database.isEmpty else { throw invalid("it names no database") }
    var authority = rest[..<slash]
    var username = "postgres"
    var password: String?
    if let at = authority.lastIndex(of: "@") {
      let user = authority[..<at]
      authority = authority[authority.index(after: at)...]
      if let colon = user.firstIndex(of: ":") {
        username = user[..<colon].removingPercentEncoding ?? ""
        password = user[user.index(after: colon)...].removingPercentEncoding
      } else {
        username = user.removingPercentEncoding ?? ""
      }
    }
    guard !username.isEmpty else { throw invalid("its user name is empty") }
    let hosts = try authority.split(separator: ",", omittingEmptySubsequences: false).map {
      entry -> Host in
      var name = entry
      var port = 5432
      if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
        let after = name[name.index(after: close)...]
        name = name[name.index(after: name.startIndex)..<close]
        if after.hasPrefix(":") {
          guard let p = Int(after.dropFirst()), (1...65535).contains(p) else {
            throw invalid("bad port in \(entry)")
          }
          port = p
        }
      } else if let colon = name.lastIndex(of: ":") {
        guard let p = Int(name[name.index(after: colon)...]), (1...65535).contains(p) else {
          throw invalid("bad port in \(entry)")
        }
        port = p
        name = name[..<colon]
      }
      guard !name.isEmpty else { throw invalid("a host is empty") }
      return Host(name: String(name), port: port)
    }
    var tls = TLS.prefer
    for pair in query.split(separator: "&") where !pair.isEmpty {
      let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, parts[0] == "sslmode" else {
        throw invalid("unknown parameter \(parts[0]) (only sslmode is read)")
      }
      guard let mode = TLS(rawValue: parts[1]) else {
        throw invalid("sslmode is disable, prefer or require, not \(parts[1])")
      }
      tls = mode
    }
    self.hosts = hosts
    self.username = username
    self.password = password
    self.database = database
    self.tls = tls
  }

  /// The same URL for another database on the same servers (a test's throwaway one).
  public func with(database: String) -> PostgresLocation {
    var copy = self
    copy.database = database
    return copy
  }

  /// The URL without its password, for logs.
  public var description: String {
    let hostList = hosts.map {
      $0.name.contains(":") ? "[\($0.name)]:\($0.port)" : "\($0.name):\($0.port)"
    }
    return "postgresql://\(username)@\(hostList.joined(separator: ","))/\(database)"
  }
}
