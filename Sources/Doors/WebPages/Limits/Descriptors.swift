import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The process's file descriptors: its limit and how many are open.
enum Descriptors {
  /// The soft `RLIMIT_NOFILE`, or nil when it cannot be read or is unlimited (`RLIM_INFINITY`).
  static var limit: Int? {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0,
      limit.rlim_cur < rlim_t.max
    else { return nil }
    return Int(clamping: limit.rlim_cur)
  }

  /// The descriptors open now (Linux's `/proc/self/fd`, less the one listing it), or nil.
  static var open: Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { $0.count - 1 }
  }
}
