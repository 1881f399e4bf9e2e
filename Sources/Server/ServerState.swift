import Commands
import Foundation
import Keyspace
import NIOConcurrencyHelpers
import Store

/// The server-wide state commands see: connected clients, live configuration, statistics, the
/// store. It is the `ServerEnvironment` of the command layer.
final class ServerState: ServerEnvironment, @unchecked Sendable {
  struct Client: Sendable {
    var id: Int
    var address: String
    var name: String?
    var db = 0
    var connectedAt: Date
    var lastCommandAt: Date
    var lastCommand = "NULL"
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
  let startedAt = Date()
  private let live: NIOLockedValueBox<Live>
  private let clients = NIOLockedValueBox<[Int: Client]>([:])
  private let nextClientID = NIOLockedValueBox(0)

  init(configuration: ServerConfiguration, keyspace: Keyspace, store: Store, shards: Int) {
    self.configuration = configuration
    self.keyspace = keyspace
    self.store = store
    statistics = Statistics(shards: shards)
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
  func connect(address: String) -> Int? {
    let limit = maxClients
    let id = nextClientID.withLockedValue { n -> Int in
      n += 1
      return n
    }
    statistics.connectionsReceived.withLockedValue { $0 += 1 }
    let admitted = clients.withLockedValue { all -> Bool in
      guard all.count < limit else { return false }
      let now = Date()
      all[id] = Client(id: id, address: address, connectedAt: now, lastCommandAt: now)
      return true
    }
    if !admitted { statistics.rejectedConnections.withLockedValue { $0 += 1 } }
    return admitted ? id : nil
  }

  func disconnect(id: Int) {
    _ = clients.withLockedValue { $0.removeValue(forKey: id) }
  }

  func commandRan(id: Int, command: String?) {
    clients.withLockedValue { all in
      all[id]?.lastCommandAt = Date()
      if let command { all[id]?.lastCommand = command }
    }
  }

  func sessionChanged(_ session: Session) {
    clients.withLockedValue { all in
      all[session.id]?.name = session.name
      all[session.id]?.db = session.db
    }
  }

  func clientList() -> String {
    clients.withLockedValue { all in
      all.values.sorted { $0.id < $1.id }.map(Self.line).joined()
    }
  }

  func clientInfo(id: Int) -> String {
    clients.withLockedValue { all in all[id].map(Self.line) ?? "" }
  }

  private static func line(_ c: Client) -> String {
    let now = Date()
    let age = Int(now.timeIntervalSince(c.connectedAt))
    let idle = Int(now.timeIntervalSince(c.lastCommandAt))
    return "id=\(c.id) addr=\(c.address) laddr= fd=-1 name=\(c.name ?? "") age=\(age) "
      + "idle=\(idle) flags=N db=\(c.db) sub=0 psub=0 ssub=0 multi=-1 cmd=\(c.lastCommand)\n"
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
    case "maxclients":
      guard let n = Int(value), n >= 1 else { return invalid(name, value) }
      live.withLockedValue { $0.maxClients = n }
    case "timeout":
      guard let n = Int(value), n >= 0 else { return invalid(name, value) }
      live.withLockedValue { $0.idleTimeout = n }
    case "save", "appendonly":
      return nil  // Accepted for Redis tooling; the store is always durable.
    default:
      if parameters().contains(where: { $0.0 == name }) {
        return "ERR CONFIG SET failed (possibly related to argument '\(name)') - can't set immutable config"
      }
      return "ERR Unknown option or number of arguments for CONFIG SET - '\(name)'"
    }
    return nil
  }

  private func invalid(_ name: String, _ value: String) -> String {
    "ERR CONFIG SET failed (possibly related to argument '\(name)') - argument couldn't be parsed into an integer"
  }

  func resetStatistics() { statistics.reset() }

  func backup(to path: String) throws { try store.backup(to: path) }

  func info(sections: [String]) -> String {
    InfoReport(state: self).text(sections: sections)
  }
}
