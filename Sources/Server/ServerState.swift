import Commands
import Foundation
import Keyspace
import NIOConcurrencyHelpers
import RESP
import Store
import Synchronization

/// The server-wide state commands see: connected clients, live configuration, statistics, the
/// store. It is the `ServerEnvironment` of the command layer.
final class ServerState: ServerEnvironment, @unchecked Sendable {
  /// One connection as CLIENT LIST shows it. Its own event loop updates it after every command
  /// (atomics: no lock on that path); the lock on the rarely changed fields is only ever
  /// contended by CLIENT LIST.
  final class Client: Sendable {
    struct Fields: Sendable {
      var name: String?
      var db = 0
    }

    let id: Int
    let address: String
    let connectedAt: UInt64
    let fields = NIOLockedValueBox(Fields())
    let lastCommandAt: Synchronization.Atomic<UInt64>
    /// The last known command's number (`CommandProcessor.commandNames`); -1 before any.
    let lastCommand = Synchronization.Atomic<Int>(-1)

    init(id: Int, address: String, now: UInt64) {
      self.id = id
      self.address = address
      connectedAt = now
      lastCommandAt = Synchronization.Atomic(now)
    }

    func ran(_ command: Int?, at now: UInt64) {
      lastCommandAt.store(now, ordering: .relaxed)
      if let command { lastCommand.store(command, ordering: .relaxed) }
    }
  }

  struct Live: Sendable {
    var requirePassword: String?
    var maxClients: Int
    var idleTimeout: Int
  }

  let configuration: ServerConfiguration
  let keyspace: Keyspace
  let store: Store
  let statistics: Statistics
  /// Event-loop threads serving connections.
  let eventLoops: Int
  let startedAt = Date()
  private let live: NIOLockedValueBox<Live>
  private let clients = NIOLockedValueBox<[Int: Client]>([:])

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
  private let nextClientID = NIOLockedValueBox(0)

  init(configuration: ServerConfiguration, keyspace: Keyspace, store: Store, shards: Int) {
    self.configuration = configuration
    self.keyspace = keyspace
    self.store = store
    statistics = Statistics(shards: shards)
    eventLoops = shards
    live = NIOLockedValueBox(
      Live(
        requirePassword: configuration.requirePassword, maxClients: configuration.maxClients,
        idleTimeout: configuration.idleTimeout))
  }

  /// Commands processed, sampled every 100 ms: INFO's instantaneous_ops_per_sec is the rate
  /// over the last 16 samples, as in Redis.
  private let samples = NIOLockedValueBox<[(at: UInt64, processed: UInt64)]>([])

  func sampleOperations() {
    let processed = statistics.processed
    let now = DispatchTime.now().uptimeNanoseconds
    samples.withLockedValue { s in
      s.append((now, processed))
      if s.count > 17 { s.removeFirst(s.count - 17) }
    }
  }

  var opsPerSecond: Int {
    samples.withLockedValue { s in
      guard let first = s.first, let last = s.last, last.at > first.at else { return 0 }
      return Int(Double(last.processed - first.processed) * 1e9 / Double(last.at - first.at))
    }
  }

  var requirePassword: String? { live.withLockedValue { $0.requirePassword } }
  var maxClients: Int { live.withLockedValue { $0.maxClients } }
  var idleTimeout: Int { live.withLockedValue { $0.idleTimeout } }
  var connectedClients: Int { clients.withLockedValue { $0.count } }

  // MARK: Clients

  /// Registers a connection; nil when `maxclients` are already connected.
  func connect(address: String) -> Client? {
    let limit = maxClients
    let id = nextClientID.withLockedValue { n -> Int in
      n += 1
      return n
    }
    statistics.connectionsReceived.withLockedValue { $0 += 1 }
    let client = Client(id: id, address: address, now: Self.now())
    let admitted = clients.withLockedValue { all -> Bool in
      guard all.count < limit else { return false }
      all[id] = client
      return true
    }
    if !admitted { statistics.rejectedConnections.withLockedValue { $0 += 1 } }
    return admitted ? client : nil
  }

  func disconnect(id: Int) {
    _ = clients.withLockedValue { $0.removeValue(forKey: id) }
  }

  func sessionChanged(_ session: Session) {
    let client = clients.withLockedValue { $0[session.id] }
    client?.fields.withLockedValue { f in
      f.name = session.name
      f.db = session.db
    }
  }

  func clientList() -> String {
    let all = clients.withLockedValue { $0.values.sorted { $0.id < $1.id } }
    return all.map(line).joined()
  }

  func clientInfo(id: Int) -> String {
    clients.withLockedValue { $0[id] }.map(line) ?? ""
  }

  private func line(_ c: Client) -> String {
    let f = c.fields.withLockedValue { $0 }
    let now = Self.now()
    let age = (now - c.connectedAt) / 1_000_000_000
    let idle = (now - min(now, c.lastCommandAt.load(ordering: .relaxed))) / 1_000_000_000
    let names = statistics.names.withLockedValue { $0 }
    let id = c.lastCommand.load(ordering: .relaxed)
    let command = names.indices.contains(id) ? names[id] : "NULL"
    return "id=\(c.id) addr=\(c.address) laddr= fd=-1 name=\(f.name ?? "") age=\(age) "
      + "idle=\(idle) flags=N db=\(f.db) sub=0 psub=0 ssub=0 multi=-1 cmd=\(command)\n"
  }

  // MARK: CONFIG

  /// The parameters CONFIG GET knows, with their current values.
  private func parameters() -> [(String, String)] {
    let l = live.withLockedValue { $0 }
    return [
      ("bind", configuration.host),
      ("port", String(configuration.port)),
      ("dir", configuration.dataDirectory),
      ("requirepass", l.requirePassword ?? ""),
      ("maxclients", String(l.maxClients)),
      ("timeout", String(l.idleTimeout)),
      ("databases", String(Keyspace.databaseCount)),
      ("proto-max-bulk-len", String(configuration.limits.maxBulkLength)),
      ("cardatlas-max-inline-len", String(configuration.limits.maxInlineLength)),
      ("cardatlas-max-array-len", String(configuration.limits.maxArrayLength)),
      ("appendonly", "yes"),
      ("appendfsync", configuration.fsync == .always ? "always" : "everysec"),
      ("cardatlas-fsync", configuration.fsync.rawValue),
      ("save", ""),
    ]
  }

  func configGet(_ pattern: String) -> [(String, String)] {
    parameters().filter { globMatches(Array(pattern.utf8), Array($0.0.utf8), ignoringCase: true) }
  }

  func configSet(_ name: String, _ value: String) -> String? {
    switch name {
    case "requirepass":
      live.withLockedValue { $0.requirePassword = value.isEmpty ? nil : value }
    case "maxclients", "timeout":
      // Redis's bounds and errors: an unsigned int of clients, an int of seconds.
      let range = name == "maxclients" ? 1...Int(UInt32.max) : 0...Int(Int32.max)
      guard let n = parseRedisInteger(Array(value.utf8)) else {
        return failed(name, "argument couldn't be parsed into an integer")
      }
      guard range.contains(n) else {
        return failed(
          name, "argument must be between \(range.lowerBound) and \(range.upperBound) inclusive")
      }
      live.withLockedValue {
        if name == "maxclients" { $0.maxClients = n } else { $0.idleTimeout = n }
      }
    case "save", "appendonly":
      return nil  // Accepted for Redis tooling; the store is always durable.
    default:
      if parameters().contains(where: { $0.0 == name }) {
        return
          "ERR CONFIG SET failed (possibly related to argument '\(name)') - can't set immutable config"
      }
      return "ERR Unknown option or number of arguments for CONFIG SET - '\(name)'"
    }
    return nil
  }

  private func failed(_ name: String, _ reason: String) -> String {
    "ERR CONFIG SET failed (possibly related to argument '\(name)') - \(reason)"
  }

  func resetStatistics() { statistics.reset() }

  func backup(to path: String) throws { try store.backup(to: path) }

  func info(sections: [String]) -> String {
    InfoReport(state: self).text(sections: sections)
  }
}
