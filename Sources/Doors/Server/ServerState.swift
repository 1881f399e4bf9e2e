import Commands
import FenceCommands
import Foundation
import Keyspace
import KeyspaceStore
import Logging
import NIOConcurrencyHelpers
import NIOCore
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
    let channel: Channel
    let connectedAt: UInt64
    let fields = NIOLockedValueBox(Fields())
    let lastCommandAt: Synchronization.Atomic<UInt64>
    /// The last known command's number (`CommandProcessor.commandNames`); -1 before any.
    let lastCommand = Synchronization.Atomic<Int>(-1)
    /// Its buffers as CLIENT LIST shows them (Redis's names), published by the connection.
    let queryBuffer = Synchronization.Atomic<Int>(0)
    let queryBufferFree = Synchronization.Atomic<Int>(0)
    let argumentBytes = Synchronization.Atomic<Int>(0)
    let outputBuffer = Synchronization.Atomic<Int>(0)
    let outputList = Synchronization.Atomic<Int>(0)
    let outputMemory = Synchronization.Atomic<Int>(0)
    let totalMemory = Synchronization.Atomic<Int>(0)
    let reading = Synchronization.Atomic<Bool>(true)
    /// What the connection counts in its event loop's client memory (`ClientMemory`).
    let counted = Synchronization.Atomic<Int>(0)
    /// Chosen for eviction, its channel closing.
    let evicted = Synchronization.Atomic<Bool>(false)

    init(id: Int, address: String, channel: Channel, now: UInt64) {
      self.id = id
      self.address = address
      self.channel = channel
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

  /// The client limits, read by every connection without a lock (CONFIG SET changes them).
  struct Limits: ~Copyable {
    let outputHard: Synchronization.Atomic<Int>
    let outputSoft: Synchronization.Atomic<Int>
    let outputSoftSeconds: Synchronization.Atomic<Int>
    let queryBuffer: Synchronization.Atomic<Int>
    let maxMemoryClients: Synchronization.Atomic<Int>
    /// Redis's `pubsub` class: connections with subscriptions.
    let pubsubHard: Synchronization.Atomic<Int>
    let pubsubSoft: Synchronization.Atomic<Int>
    let pubsubSoftSeconds: Synchronization.Atomic<Int>

    init(_ configuration: ServerConfiguration) {
      outputHard = .init(configuration.outputBufferLimit.hard)
      outputSoft = .init(configuration.outputBufferLimit.soft)
      outputSoftSeconds = .init(configuration.outputBufferLimit.softSeconds)
      pubsubHard = .init(configuration.pubsubOutputBufferLimit.hard)
      pubsubSoft = .init(configuration.pubsubOutputBufferLimit.soft)
      pubsubSoftSeconds = .init(configuration.pubsubOutputBufferLimit.softSeconds)
      queryBuffer = .init(configuration.queryBufferLimit)
      maxMemoryClients = .init(configuration.maxMemoryClients)
    }

    var output: OutputBufferLimit {
      OutputBufferLimit(
        hard: outputHard.load(ordering: .relaxed), soft: outputSoft.load(ordering: .relaxed),
        softSeconds: outputSoftSeconds.load(ordering: .relaxed))
    }

    var pubsubOutput: OutputBufferLimit {
      OutputBufferLimit(
        hard: pubsubHard.load(ordering: .relaxed), soft: pubsubSoft.load(ordering: .relaxed),
        softSeconds: pubsubSoftSeconds.load(ordering: .relaxed))
    }
  }

  /// Bytes held in connections' buffers, one counter per event loop so that no two cores write
  /// the same one; a connection adds to its loop's only when its own use has moved by
  /// `granularity` or more, so requests with small replies never touch it.
  final class ClientMemory: Sendable {
    static let granularity = 16 * 1024

    /// Padded to lines of its own: two loops' counters side by side would share one.
    private final class Counter: Sendable {
      let bytes = Synchronization.Atomic<Int>(0)
      private let padding:
        (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
    }

    private let shards: [Counter]

    init(shards count: Int) { shards = (0..<max(1, count)).map { _ in Counter() } }

    func add(_ bytes: Int, shard: Int) {
      shards[shard % shards.count].bytes.wrappingAdd(bytes, ordering: .relaxed)
    }

    var total: Int { shards.reduce(0) { $0 + $1.bytes.load(ordering: .relaxed) } }
  }

  let configuration: ServerConfiguration
  let keyspace: Keyspace
  /// Where the keyspace is kept.
  let storage: any KeyspaceStorage
  let statistics: Statistics
  /// Event-loop threads serving connections.
  let eventLoops: Int
  let startedAt = Date()
  let logger: Logger
  let limits: Limits
  let clientMemory: ClientMemory
  let pubsub: PubSubHub
  /// The fences over the GEO keys (INFO's fences section).
  let fences: KeyspaceFences
  /// Held while clients are chosen for eviction, so that two loops do not both close some.
  private let eviction = NIOLock()
  private let live: NIOLockedValueBox<Live>
  private let clients = NIOLockedValueBox<[Int: Client]>([:])

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
  private let nextClientID = NIOLockedValueBox(0)

  init(
    configuration: ServerConfiguration, keyspace: Keyspace, storage: any KeyspaceStorage,
    pubsub: PubSubHub, fences: KeyspaceFences, shards: Int, logger: Logger
  ) {
    self.configuration = configuration
    self.keyspace = keyspace
    self.storage = storage
    self.pubsub = pubsub
    self.fences = fences
    self.logger = logger
    statistics = Statistics(shards: shards)
    eventLoops = shards
    limits = Limits(configuration)
    clientMemory = ClientMemory(shards: shards)
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
  func connect(address: String, channel: Channel) -> Client? {
    let limit = maxClients
    let id = nextClientID.withLockedValue { n -> Int in
      n += 1
      return n
    }
    statistics.connectionsReceived.withLockedValue { $0 += 1 }
    let client = Client(id: id, address: address, channel: channel, now: Self.now())
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
    pubsub.disconnect(id)
  }

  /// Redis 7's client eviction: while the connections' buffers together exceed
  /// `maxmemory-clients`, the one using the most is closed. Called by a connection whose use
  /// grew; those already chosen count as gone, as their loops may not have closed them yet.
  func evictClientsIfNeeded() {
    let limit = limits.maxMemoryClients.load(ordering: .relaxed)
    guard limit > 0, clientMemory.total > limit else { return }
    eviction.withLock {
      let all = clients.withLockedValue { Array($0.values) }
      var total = clientMemory.total
      var candidates: [(client: Client, bytes: Int)] = []
      for client in all {
        let bytes = client.counted.load(ordering: .relaxed)
        if client.evicted.load(ordering: .relaxed) {
          total -= bytes
        } else {
          candidates.append((client, bytes))
        }
      }
      candidates.sort { $0.bytes > $1.bytes }
      for (client, bytes) in candidates where total > limit {
        total -= bytes
        client.evicted.store(true, ordering: .relaxed)
        statistics.evictedClients.add(1, ordering: .relaxed)
        logger.warning("Evicting client: \(line(client).dropLast())")
        // Closed on its own loop, after the caller (maybe that very connection) returns.
        let channel = client.channel
        channel.eventLoop.execute { channel.close(promise: nil) }
      }
    }
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

  /// INFO's client_recent_max_input_buffer and client_recent_max_output_buffer: the largest
  /// query buffer (with its free space) and pending output of any connection now.
  var largestClientBuffers: (input: Int, output: Int) {
    clients.withLockedValue { all in
      all.values.reduce((0, 0)) { largest, c in
        let input =
          c.queryBuffer.load(ordering: .relaxed) + c.queryBufferFree.load(ordering: .relaxed)
        let output =
          c.outputBuffer.load(ordering: .relaxed) + c.outputMemory.load(ordering: .relaxed)
        return (max(largest.0, input), max(largest.1, output))
      }
    }
  }

  func line(_ c: Client) -> String {
    let f = c.fields.withLockedValue { $0 }
    let now = Self.now()
    let age = (now - c.connectedAt) / 1_000_000_000
    let idle = (now - min(now, c.lastCommandAt.load(ordering: .relaxed))) / 1_000_000_000
    let names = statistics.names.withLockedValue { $0 }
    let id = c.lastCommand.load(ordering: .relaxed)
    let command = names.indices.contains(id) ? names[id] : "NULL"
    let output = c.outputBuffer.load(ordering: .relaxed)
    let omem = c.outputMemory.load(ordering: .relaxed)
    let events = (c.reading.load(ordering: .relaxed) ? "r" : "") + (output + omem > 0 ? "w" : "")
    let (sub, psub) = pubsub.counts(of: c.id)
    return "id=\(c.id) addr=\(c.address) laddr= fd=-1 name=\(f.name ?? "") age=\(age) "
      + "idle=\(idle) flags=\(sub + psub > 0 ? "P" : "N") db=\(f.db) sub=\(sub) psub=\(psub) "
      + "ssub=0 multi=-1 "
      + "qbuf=\(c.queryBuffer.load(ordering: .relaxed)) "
      + "qbuf-free=\(c.queryBufferFree.load(ordering: .relaxed)) "
      + "argv-mem=\(c.argumentBytes.load(ordering: .relaxed)) multi-mem=0 obl=\(output) "
      + "oll=\(c.outputList.load(ordering: .relaxed)) omem=\(omem) "
      + "tot-mem=\(c.totalMemory.load(ordering: .relaxed)) events=\(events) cmd=\(command) "
      + "user=default redir=-1\n"
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
      (
        "client-output-buffer-limit",
        "normal \(limits.output.description) pubsub \(limits.pubsubOutput.description)"
      ),
      ("client-query-buffer-limit", String(limits.queryBuffer.load(ordering: .relaxed))),
      ("maxmemory-clients", String(limits.maxMemoryClients.load(ordering: .relaxed))),
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
    case "client-output-buffer-limit":
      switch OutputBufferLimit.parse(value) {
      case .failure(let error): return failed(name, error.description)
      case .success(let classes):
        if let limit = classes.normal {
          limits.outputHard.store(limit.hard, ordering: .relaxed)
          limits.outputSoft.store(limit.soft, ordering: .relaxed)
          limits.outputSoftSeconds.store(limit.softSeconds, ordering: .relaxed)
        }
        if let limit = classes.pubsub {
          limits.pubsubHard.store(limit.hard, ordering: .relaxed)
          limits.pubsubSoft.store(limit.soft, ordering: .relaxed)
          limits.pubsubSoftSeconds.store(limit.softSeconds, ordering: .relaxed)
        }
      }
    case "client-query-buffer-limit":
      // Redis's bounds for it.
      guard let n = MemorySize.parse(value) else {
        return failed(name, "argument must be a memory value")
      }
      guard n >= 1024 * 1024 else {
        return failed(name, "argument must be between 1048576 and 9223372036854775807 inclusive")
      }
      limits.queryBuffer.store(n, ordering: .relaxed)
    case "maxmemory-clients":
      // Redis also takes a percentage of maxmemory, which CardAtlas does not have.
      if value.hasSuffix("%") {
        return failed(name, "a percentage needs maxmemory, which CardAtlas does not have")
      }
      guard let n = MemorySize.parse(value) else {
        return failed(name, "argument must be a memory or percent value")
      }
      limits.maxMemoryClients.store(n, ordering: .relaxed)
      evictClientsIfNeeded()
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

  func backup(to path: String) throws {
    try storage.backup(to: path)
  }

  func info(sections: [String]) -> String {
    InfoReport(state: self).text(sections: sections)
  }
}
