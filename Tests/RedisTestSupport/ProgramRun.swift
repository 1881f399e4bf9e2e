import Foundation

extension RedisProcess {
  /// Runs an installed program (redis-cli, python3...), feeding it `input`, and returns its
  /// standard output and error together, and its exit status.
  public static func run(_ name: String, _ arguments: [String], input: String? = nil) throws -> (
    String, Int32
  ) {
    guard let executable = executable(name) else { throw NotInstalled() }
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = arguments
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
}
