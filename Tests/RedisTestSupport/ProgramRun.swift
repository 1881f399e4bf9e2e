import Foundation

extension RedisProcess {
  /// Runs an installed program (redis-cli, python3...), in `directory` if given, feeding it
  /// `input`, and returns its standard output and error together, and its exit status.
  public static func run(
    _ name: String, _ arguments: [String], input: String? = nil, in directory: String? = nil
  ) throws -> (String, Int32) {
    guard let executable = executable(name) else { throw NotInstalled() }
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory.map { URL(fileURLWithPath: $0) }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let stdin = Pipe()
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
  }

  /// `run` on a thread of its own: a test that waits for a long program does not hold one of
  /// the few threads the other tests' tasks run on.
  public static func runDetached(
    _ name: String, _ arguments: [String], in directory: String? = nil
  ) async throws -> (String, Int32) {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(with: Result { try run(name, arguments, in: directory) })
      }.start()
    }
  }
}
