import Foundation
import RedisTestSupport

/// A throwaway `redis-server` driven through `redis-cli` reading commands from a file, whose
/// output flattens nested replies to one value a line.
final class RedisServer {
  private let process: RedisProcess
  private let cli: URL
  private let directory: URL

  init() throws {
    guard let cli = RedisProcess.executable("redis-cli") else { throw RedisProcess.NotInstalled() }
    self.cli = cli
    process = try RedisProcess()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geodesy-redis-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func stop() {
    process.stop()
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs the commands in order and returns redis-cli's output lines (nested replies flattened,
  /// one value a line). Arguments must not contain spaces or quotes.
  func run(_ commands: [[String]]) throws -> [String] {
    let name = UUID().uuidString
    let input = directory.appendingPathComponent("\(name).in")
    let output = directory.appendingPathComponent("\(name).out")
    try (commands.map { $0.joined(separator: " ") }.joined(separator: "\n") + "\n")
      .write(to: input, atomically: true, encoding: .utf8)
    FileManager.default.createFile(atPath: output.path, contents: nil)
    let process = ChildProcess()
    process.executableURL = cli
    process.arguments = ["-h", "127.0.0.1", "-p", "\(self.process.port)"]
    process.standardInput = try FileHandle(forReadingFrom: input)
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let text = try String(contentsOf: output, encoding: .utf8)
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}
