import Foundation
import Keyspace

#if canImport(Glibc)
  import Glibc
#endif

/// INFO's text: Redis's sections and field names where Redis has them, so monitoring tools
/// read it unchanged.
struct InfoReport {
  let state: ServerState

  /// Unlike Redis, plain INFO includes the per-command counts and latency percentiles: they
  /// are what an operator looks for first.
  static let allSections = [
    "server", "clients", "memory", "persistence", "replication", "stats", "commandstats",
    "latencystats", "keyspace", "index", "fences", "hooks",
  ]

  func text(sections requested: [String]) -> String {
    var names = requested
    if names.isEmpty || names.contains(where: { ["all", "everything", "default"].contains($0) }) {
      names = Self.allSections
    }
    let wanted = Self.allSections.filter { names.contains($0) }
    return wanted.map { name in
      "# \(name.prefix(1).uppercased() + name.dropFirst())\r\n"
        + fields(name).map { "\($0.0):\($0.1)\r\n" }.joined()
    }.joined(separator: "\r\n")
  }

  private func fields(_ section: String) -> [(String, String)] {
    switch section {
    case "server": return server()
    case "clients": return clients()
    case "memory": return memory()
    case "persistence": return persistence()
    case "replication":
      return [("role", "master"), ("connected_slaves", "0")] + state.storage.replication()
    case "stats": return stats()
    case "keyspace": return keyspace()
    case "index": return index()
    case "fences": return state.fences.report()
    case "hooks": return state.fences.webhooks.report()
    case "commandstats": return commandStats()
    case "latencystats": return latencyStats()
    default: return []
    }
  }

  private func server() -> [(String, String)] {
    let uptime = Int(Date().timeIntervalSince(state.startedAt))
    return [
      ("redis_version", "7.0.15"),
      ("cardatlas_version", ServerInfo.version),
      ("redis_mode", "standalone"),
      ("os", ServerInfo.operatingSystem),
      ("arch_bits", String(Int.bitWidth)),
      ("process_id", String(getpid())),
      ("tcp_port", String(state.configuration.port)),
      ("uptime_in_seconds", String(uptime)),
      ("uptime_in_days", String(uptime / 86400)),
      ("cardatlas_event_loops", String(state.eventLoops)),
    ]
  }

  /// No command blocks and none tracks keys, so those counts are 0 here.
  private func clients() -> [(String, String)] {
    let largest = state.largestClientBuffers
    return [
      ("connected_clients", String(state.connectedClients)),
      ("cluster_connections", "0"),
      ("maxclients", String(state.maxClients)),
      ("client_recent_max_input_buffer", String(largest.input)),
      ("client_recent_max_output_buffer", String(largest.output)),
      ("blocked_clients", "0"),
      ("tracking_clients", "0"),
      ("clients_in_timeout_table", "0"),
    ]
  }

  private func memory() -> [(String, String)] {
    // The C library does not say how much of its heap is in use; the resident size stands in.
    let rss = ServerInfo.residentBytes()
    let used = rss
    return [
      ("used_memory", String(used)),
      ("used_memory_human", ServerInfo.human(used)),
      ("used_memory_rss", String(rss)),
      ("used_memory_rss_human", ServerInfo.human(rss)),
      ("total_system_memory", String(ProcessInfo.processInfo.physicalMemory)),
      ("mem_clients_normal", String(state.clientMemory.total)),
      ("mem_allocator", "libc"),
    ]
  }

  private func persistence() -> [(String, String)] {
    [("loading", "0"), ("aof_enabled", "1")] + state.storage.persistence()
  }

  private func stats() -> [(String, String)] {
    let statistics = state.statistics
    let errors = statistics.errors
    let failed = statistics.commands().values.reduce(0) { $0 + $1.failed }
    return [
      (
        "total_connections_received",
        String(state.statistics.connectionsReceived.withLockedValue { $0 })
      ),
      ("total_commands_processed", String(statistics.processed)),
      ("instantaneous_ops_per_sec", String(state.opsPerSecond)),
      ("rejected_connections", String(state.statistics.rejectedConnections.withLockedValue { $0 })),
      ("unknown_commands", String(errors.rejected)),
      ("total_error_replies", String(failed)),
      ("protocol_errors", String(errors.protocol)),
      ("pubsub_channels", String(state.pubsub.channelCount)),
      ("pubsub_patterns", String(state.pubsub.patternCount)),
      ("evicted_clients", String(statistics.evictedClients.load(ordering: .relaxed))),
      (
        "client_query_buffer_limit_disconnections",
        String(statistics.queryBufferLimitDisconnections.load(ordering: .relaxed))
      ),
      (
        "client_output_buffer_limit_disconnections",
        String(statistics.outputBufferLimitDisconnections.load(ordering: .relaxed))
      ),
    ]
  }

  private func keyspace() -> [(String, String)] {
    state.keyspace.read { dbs in
      (0..<Keyspace.databaseCount).compactMap { i -> (String, String)? in
        let n = dbs[i].count
        return n == 0 ? nil : ("db\(i)", "keys=\(n),expires=0,avg_ttl=0")
      }
    }
  }

  private func commandStats() -> [(String, String)] {
    state.statistics.commands().sorted { $0.key < $1.key }.map { name, c in
      let usec = Double(c.nanoseconds) / 1000
      let perCall = c.calls == 0 ? 0 : usec / Double(c.calls)
      return (
        "cmdstat_\(name)",
        "calls=\(c.calls),usec=\(Int(usec)),usec_per_call=\(String(format: "%.2f", perCall)),"
          + "rejected_calls=0,failed_calls=\(c.failed)"
      )
    }
  }

  /// Redis 7's latency percentiles per command, in microseconds.
  private func latencyStats() -> [(String, String)] {
    state.statistics.commands().sorted { $0.key < $1.key }.map { name, c in
      let p = [50.0, 99.0, 99.9].map { percentile in
        String(format: "%.3f", Double(c.latency.valueAtPercentile(percentile)) / 1000)
      }
      return ("latency_percentiles_usec_\(name)", "p50=\(p[0]),p99=\(p[1]),p99.9=\(p[2])")
    }
  }
}

/// Facts about the running process for INFO.
enum ServerInfo {
  static let version = "0.1.0"

  static var operatingSystem: String {
    var name = utsname()
    uname(&name)
    func text<T>(_ field: T) -> String {
      withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    return "\(text(name.sysname)) \(text(name.release)) \(text(name.machine))"
  }

  /// Resident set size, from /proc.
  static func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
      let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  static func human(_ bytes: Int) -> String {
    let units = ["B", "K", "M", "G", "T"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return unit == 0 ? "\(bytes)B" : String(format: "%.2f", value) + units[unit]
  }
}
