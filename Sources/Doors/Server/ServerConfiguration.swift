import Logging
import RESP
import Store

/// How `cardatlas serve` runs. Every limit has a safe default and is a flag of `serve`.
public struct ServerConfiguration: Sendable {
  public var host = "127.0.0.1"
  public var port = 7878
  /// Where the store keeps its files.
  public var dataDirectory = "./var"
  /// The admin password: with it, everything but AUTH, HELLO and QUIT answers NOAUTH first.
  public var requirePassword: String?
  public var fsync = FsyncPolicy.always
  /// Loads the demo dataset into an empty store on start.
  public var demo = false
  /// Longest inline line, bulk string and array a client may send.
  public var limits = RESPLimits()
  /// Most connections at once; Redis's default.
  public var maxClients = 10_000
  /// Seconds a connection may stay silent before it is closed; 0 never closes one.
  public var idleTimeout = 600
  /// Event-loop threads; 0 means one per core.
  public var threads = 0
  /// Redis's `client-output-buffer-limit` for normal clients. Redis has none for them
  /// (`normal 0 0 0`) and relies on `maxmemory-clients`; here a connection also stops being
  /// read while its replies wait, so only replies of tens of megabytes come near these.
  public var outputBufferLimit = OutputBufferLimit(
    hard: 256 * 1024 * 1024, soft: 64 * 1024 * 1024, softSeconds: 60)
  /// Redis's `client-output-buffer-limit` for pub/sub clients (any connection with a
  /// subscription), Redis's default: a subscriber that does not read its messages is closed
  /// before they take the server's memory, and the others are not held up.
  public var pubsubOutputBufferLimit = OutputBufferLimit(
    hard: 32 * 1024 * 1024, soft: 8 * 1024 * 1024, softSeconds: 60)
  /// Redis's `client-query-buffer-limit`: a connection whose unparsed input exceeds it is
  /// closed. Redis's default; it must hold the largest bulk string (`limits.maxBulkLength`).
  public var queryBufferLimit = 1024 * 1024 * 1024
  /// Redis 7's `maxmemory-clients`: when all connections' buffers together exceed it, the
  /// connection using the most is closed first, then the next, until they fit. Redis has no
  /// total by default; here memory is bounded unless told otherwise (0: no total).
  public var maxMemoryClients = 1024 * 1024 * 1024
  /// Webhooks may use http and send to private addresses (a test deployment's receiver);
  /// otherwise only https to public ones.
  public var hooksAllowInsecure = false

  public init() {}
}

/// Redis's `client-output-buffer-limit` for one class of clients: a connection whose replies
/// not yet taken reach `hard` bytes, or stay at `soft` bytes or more for over `softSeconds`, is
/// closed. 0 turns a limit off.
public struct OutputBufferLimit: Sendable, Equatable {
  public var hard: Int
  public var soft: Int
  public var softSeconds: Int

  public init(hard: Int, soft: Int, softSeconds: Int) {
    self.hard = hard
    self.soft = soft
    self.softSeconds = softSeconds
  }

  /// As Redis's CONFIG SET reads it: one or more `<class> <hard> <soft> <soft-seconds>`, sizes
  /// in Redis's units. The `normal` and `pubsub` classes apply (there are no replicas:
  /// `replica` and `slave` are accepted for Redis's tooling and set nothing). Returns the limits
  /// of the classes given (nil for one not given), or Redis's error text.
  public static func parse(_ text: String) -> Result<
    (normal: OutputBufferLimit?, pubsub: OutputBufferLimit?), ConfigurationError
  > {
    let words = text.split(separator: " ").map(String.init)
    guard words.count % 4 == 0 else {
      return .failure(
        ConfigurationError("Wrong number of arguments in buffer limit configuration."))
    }
    var normal: OutputBufferLimit?
    var pubsub: OutputBufferLimit?
    for start in stride(from: 0, to: words.count, by: 4) {
      let name = words[start].lowercased()
      guard ["normal", "replica", "slave", "pubsub"].contains(name) else {
        return .failure(
          ConfigurationError("Invalid client class specified in buffer limit configuration."))
      }
      guard let hard = MemorySize.parse(words[start + 1]),
        let soft = MemorySize.parse(words[start + 2]),
        let seconds = Int(words[start + 3]), seconds >= 0
      else {
        return .failure(
          ConfigurationError(
            "Error in hard, soft or soft_seconds setting in buffer limit configuration."))
      }
      let limit = OutputBufferLimit(hard: hard, soft: soft, softSeconds: seconds)
      if name == "normal" { normal = limit }
      if name == "pubsub" { pubsub = limit }
    }
    return .success((normal, pubsub))
  }

  /// As CONFIG GET shows it, after the class's name.
  public var description: String { "\(hard) \(soft) \(softSeconds)" }
}

/// A configuration value that cannot be read, with Redis's text for it.
public struct ConfigurationError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// Sizes as Redis's configuration takes them (`memtoull`): digits, then optionally `b`, `k`
/// (1,000), `kb` (1,024), `m`, `mb`, `g` or `gb`, in any case.
public enum MemorySize {
  public static func parse(_ text: String) -> Int? {
    let lower = text.lowercased()
    let digits = lower.prefix { $0.isASCII && $0.isNumber }
    let units: [String: Int] = [
      "": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1_000_000, "mb": 1024 * 1024,
      "g": 1_000_000_000, "gb": 1024 * 1024 * 1024,
    ]
    guard !digits.isEmpty, let unit = units[String(lower.dropFirst(digits.count))],
      let number = Int(digits)
    else { return nil }
    let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
    return overflow ? nil : bytes
  }
}
