import CSpawn
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program the tests start (redis-server, cardatlas, python3, zbarimg...), with the part of
/// Foundation's `Process` interface they use, on `posix_spawn`. Foundation's `Process.run()` on
/// Linux (6.3.1) over-reads the `/proc/self/fd` entries it scans and now and then crashes the
/// whole test process (swiftlang/swift-corelibs-foundation#5472, fixed in no release yet).
///
/// The child starts with default signal dispositions and an empty signal mask, and with only its
/// standard input, output and error open: nothing of the test runner's sockets or files.
public final class ChildProcess: @unchecked Sendable {
  public var executableURL: URL?
  public var arguments: [String] = []
  /// The child's whole environment; nil inherits the test runner's.
  public var environment: [String: String]?
  public var currentDirectoryURL: URL?
  /// A `FileHandle` (`FileHandle.nullDevice` included) or a `Pipe`; nil inherits the runner's.
  public var standardInput: Any?
  public var standardOutput: Any?
  public var standardError: Any?

  public private(set) var processIdentifier: pid_t = 0
  private let exit = NSLock()
  private var waitStatus: Int32?

  public init() {}

  public struct SpawnFailed: Error, CustomStringConvertible {
    public let description: String
  }

  public func run() throws {
    guard let executableURL else { throw SpawnFailed(description: "no executable") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var parentEnds: [FileHandle] = []
    for (stream, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
      switch stream {
      case let handle as FileHandle where handle.fileDescriptor < 0:
        // FileHandle.nullDevice has no descriptor of its own.
        try check(posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", O_RDWR, 0))
      case let handle as FileHandle:
        try check(posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, Int32(target)))
      case let pipe as Pipe:
        let childEnd = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
        try check(
          posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, Int32(target)))
        parentEnds.append(childEnd)
      case nil: break
      default: throw SpawnFailed(description: "a standard stream must be a FileHandle or a Pipe")
      }
    }
    try check(posix_spawn_file_actions_addclosefrom_np(&actions, 3))
    if let currentDirectoryURL {
      try check(posix_spawn_file_actions_addchdir_np(&actions, currentDirectoryURL.path))
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([executableURL.path] + arguments).map { strdup($0) } + [nil]
    let environment = self.environment ?? ProcessInfo.processInfo.environment
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for string in argv + envp { free(string) } }
    var pid = pid_t()
    try check(posix_spawn(&pid, executableURL.path, &actions, &attributes, argv, envp))
    processIdentifier = pid
    // Like Foundation's: the child's ends of pipes close here, so reading to the end finishes
    // when the child exits.
    for end in parentEnds { try? end.close() }
  }

  /// posix_spawn's functions return an errno value.
  private func check(_ result: Int32) throws {
    guard result != 0 else { return }
    let program = executableURL?.path ?? "?"
    throw SpawnFailed(description: "\(program): \(String(cString: strerror(result)))")
  }

  public var isRunning: Bool {
    guard processIdentifier > 0 else { return false }
    return exit.withLock {
      if waitStatus != nil { return false }
      var status: Int32 = 0
      if waitpid(processIdentifier, &status, WNOHANG) == processIdentifier {
        waitStatus = status
        return false
      }
      return true
    }
  }

  public func waitUntilExit() {
    guard processIdentifier > 0 else { return }
    var status: Int32 = 0
    while true {
      if exit.withLock({ waitStatus != nil }) { return }
      let reaped = waitpid(processIdentifier, &status, 0)
      if reaped == processIdentifier {
        exit.withLock { waitStatus = status }
        return
      }
      if reaped == -1 && errno != EINTR {
        // Reaped by `isRunning` on another thread, which records the status.
        usleep(1_000)
      }
    }
  }

  /// The exit code, or the number of the signal that ended it (as Foundation's).
  public var terminationStatus: Int32 {
    waitUntilExit()
    let status = exit.withLock { waitStatus ?? 0 }
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : signal
  }

  /// Sends SIGTERM.
  public func terminate() {
    if processIdentifier > 0 { kill(processIdentifier, SIGTERM) }
  }
}
