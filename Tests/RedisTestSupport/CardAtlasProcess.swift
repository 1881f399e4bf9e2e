import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The built `cardatlas` executable run as a separate process, for what only a real process
/// shows: SIGKILL, SIGTERM, a restart over the same files.
public final class CardAtlasProcess {
  public let port: UInt16
  public let directory: String
  private let process = ChildProcess()

  public init(directory: String, port: UInt16? = nil, arguments: [String] = []) throws {
    self.directory = directory
    self.port = try port ?? RedisProcess.freeLoopbackPort()
    process.executableURL = try CardAtlasExecutable.url()
    // CARDATLAS_TEST_LOGS=DIR keeps each server's log (at CARDATLAS_TEST_LOG_LEVEL) in DIR, to
    // read after a failure.
    let environment = ProcessInfo.processInfo.environment
    process.arguments =
      ["serve", "--port", "\(self.port)", "--data", directory]
      + ["--log-level", environment["CARDATLAS_TEST_LOG_LEVEL"] ?? "warning"] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    if let logs = environment["CARDATLAS_TEST_LOGS"] {
      let path = "\(logs)/node-\(self.port)-\(UUID().uuidString.prefix(8)).log"
      FileManager.default.createFile(atPath: path, contents: nil)
      process.standardError = FileHandle(forWritingAtPath: path) ?? FileHandle.nullDevice
    }
    try process.run()
    // Up to 60 s: a start is quick alone, but a loaded machine running the whole suite in
    // parallel has taken more than 10 s to schedule it. The HTTP port, when asked for, is bound
    // just after RESP answers PING: wait for it too.
    let http = arguments.firstIndex(of: "--http-port").flatMap {
      arguments.indices.contains($0 + 1) ? UInt16(arguments[$0 + 1]) : nil
    }
    for _ in 0..<1200 {
      if let connection = try? RESPConnection(port: self.port),
        (try? connection.command("PING"))?.text == "+PONG\r\n",
        http.map({ (try? RESPConnection(port: $0)) != nil }) ?? true
      {
        return
      }
      usleep(50_000)
    }
    kill(process.processIdentifier, SIGKILL)
    throw RESPConnection.Failed(description: "cardatlas did not answer on port \(self.port)")
  }

  public var isRunning: Bool { process.isRunning }
  public var processIdentifier: Int32 { process.processIdentifier }

  /// Resident set size (VmRSS), from /proc.
  public var residentBytes: Int {
    let status =
      (try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    return (kilobytes ?? 0) * 1024
  }

  /// CPU time each of the process's threads has run, in nanoseconds (Linux's schedstat).
  public func cpuNanoseconds() -> [String: Int] {
    let tasks = "/proc/\(process.processIdentifier)/task"
    var times: [String: Int] = [:]
    for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
      let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8)
      times[thread] = text?.split(separator: " ").first.flatMap { Int($0) }
    }
    return times
  }

  /// CPU nanoseconds run since `before` (a `cpuNanoseconds()`) by the threads still running.
  public func cpuNanoseconds(since before: [String: Int]) -> Int {
    cpuNanoseconds().reduce(0) { total, thread in
      total + (before[thread.key].map { thread.value - $0 } ?? 0)
    }
  }

  /// Waits (up to `timeout` seconds) until the server has used under 5% of a core over a
  /// quarter of a second: the work a write left behind (a checkpoint, a rebuilt index's old
  /// tree freed, memory returned) is over, and what comes next is timed alone.
  public func waitUntilIdle(timeout: TimeInterval = 30) {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let before = cpuNanoseconds()
      usleep(250_000)
      if cpuNanoseconds(since: before) < 12_500_000 { return }
    }
  }

  public var exitStatus: Int32 { process.terminationStatus }

  public func signal(_ number: Int32) {
    kill(process.processIdentifier, number)
  }

  public func waitUntilExit() { process.waitUntilExit() }

  /// Sends SIGKILL once `delay` has passed and waits for the exit. The sleep resumes on
  /// `DedicatedThreads`: on the full pool of a test run it came minutes late, and a crash
  /// test's writers ran on unbounded.
  public func crash(after delay: Duration) async throws {
    try await withTaskExecutorPreference(DedicatedThreads.shared) {
      try await Task.sleep(for: delay)
      signal(SIGKILL)
    }
    waitUntilExit()
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}
