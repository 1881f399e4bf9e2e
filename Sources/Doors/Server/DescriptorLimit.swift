import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// As Redis's `adjustOpenFilesLimit`: the process's descriptor limit is raised toward what
/// `--max-clients` needs, with `reserved` kept for the store, the listeners and the logs; when
/// the hard limit will not allow it, `--max-clients` is lowered to fit, so that a flood of
/// connections meets `-ERR max number of clients reached` rather than a store that cannot open
/// a file.
enum DescriptorLimit {
  static let reserved = 32

  /// The clients that fit, the limit raised as far as it may be.
  static func fit(maxClients: Int, logger: Logger) -> Int {
    #if canImport(Glibc)
      var limit = rlimit()
      guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return maxClients }
      let wanted = rlim_t(maxClients + reserved)
      if limit.rlim_cur < wanted {
        var raised = limit
        raised.rlim_cur = min(wanted, limit.rlim_max)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
      }
      let fits = Int(limit.rlim_cur) - reserved
      guard fits < maxClients else { return maxClients }
      logger.warning(
        "--max-clients lowered to what the descriptor limit allows",
        metadata: [
          "max-clients": "\(maxClients)", "now": "\(max(1, fits))",
          "descriptor limit": "\(limit.rlim_cur)",
        ])
      return max(1, fits)
    #else
      return maxClients
    #endif
  }
}
