import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A helper server the tests run beside CardAtlas (python3's http.server, an SMTP server):
/// started on a free loopback port, its output kept in a file, stopped by its process id.
public final class BackgroundProgram {
  public let port: UInt16
  public let directory: String
  private let process = ChildProcess()
  private let log: String

  /// Starts `python3 <arguments>`, where `{port}` and `{dir}` are replaced, in a new temporary
  /// directory, and waits until the port accepts connections.
  public init(python arguments: [String]) throws {
    port = try RedisProcess.freeLoopbackPort()
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-helper-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    log = (directory as NSString).appendingPathComponent("program.log")
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    guard let python = RedisProcess.executable("python3") else {
      throw RESPConnection.Failed(description: "python3 must be on the PATH")
    }
    process.executableURL = python
    process.arguments = arguments.map {
      $0.replacingOccurrences(of: "{port}", with: "\(port)")
        .replacingOccurrences(of: "{dir}", with: directory)
    }
    process.environment = ProcessInfo.processInfo.environment.merging(["PYTHONUNBUFFERED": "1"]) {
      $1
    }
    let sink = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = sink
    process.standardError = sink
    try process.run()
    for _ in 0..<200 {
      if Self.accepts(port) { return }
      guard process.isRunning else { break }
      usleep(50_000)
    }
    stop()
    throw RESPConnection.Failed(description: "python3 \(arguments) did not start: \(output())")
  }

  /// A test that fails early still stops it.
  deinit { stop() }

  /// What the program printed so far.
  public func output() -> String {
    (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
  }

  public func stop() {
    if process.isRunning {
      // SIGKILL: nothing of a helper server needs to be kept.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(atPath: directory)
  }

  private static func accepts(_ port: UInt16) -> Bool {
    (try? RESPConnection(port: port, timeoutSeconds: 1)) != nil
  }
}
