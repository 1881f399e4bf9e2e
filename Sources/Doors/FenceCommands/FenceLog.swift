import Dispatch
import DomainSupport
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#endif

/// Where the fences are kept: `fences.log` in the data directory, one JSON line per FENCE.SET
/// (`{"set":{…}}`) or FENCE.DEL (`{"del":"<name>"}`), appended and fsynced before the command is
/// acknowledged; the lines waiting when a write starts go in one write and one fsync. At start
/// the lines are replayed (a last line cut short by a crash was never acknowledged, and is
/// dropped) and the file rewritten with the fences alive, by a new file renamed over it.
final class FenceLog: Sendable {
  typealias Done = @Sendable (Result<Void, any Error>) -> Void

  private struct Queue {
    var lines: [(Data, Done)] = []
    var writing = false
  }

  let path: String
  private let fd: Int32
  private let queue = NIOLockedValueBox(Queue())
  private let worker = DispatchQueue(label: "cardatlas.fence-log")

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Opens (and compacts) the log in `directory`; returns it and the fences it held, as their
  /// JSON objects in the order they were set.
  static func open(in directory: String) throws -> (FenceLog, [[String: Any]]) {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/fences.log"
    var alive: [String: (order: Int, record: [String: Any])] = [:]
    if let data = FileManager.default.contents(atPath: path) {
      var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      // The part after the last newline: a line never finished.
      lines.removeLast()
      for (order, line) in lines.enumerated() {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        else { throw Failure(description: "\(path): line \(order + 1) is not JSON") }
        if let set = object["set"] as? [String: Any], let name = set["name"] as? String {
          alive[name] = (order, set)
        } else if let name = object["del"] as? String {
          alive[name] = nil
        }
      }
    }
    let records = alive.values.sorted { $0.order < $1.order }.map(\.record)
    var text = Data()
    for record in records { text += try line(["set": record]) }
    let fresh = path + ".new"
    try write(text, to: fresh)
    guard rename(fresh, path) == 0 else { throw Failure(description: "rename \(fresh): \(errno)") }
    let dir = Glibc.open(directory, O_RDONLY)
    if dir >= 0 {
      fsync(dir)
      close(dir)
    }
    let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw Failure(description: "open \(path): \(errno)") }
    return (FenceLog(path: path, fd: fd), records)
  }

  private init(path: String, fd: Int32) {
    self.path = path
    self.fd = fd
  }

  deinit { close(fd) }

  static func line(_ object: [String: Any]) throws -> Data {
    var data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    data.append(UInt8(ascii: "\n"))
    return data
  }

  /// Appends `object`'s line; `done` runs once it is on disk (or could not be).
  func append(_ object: [String: Any], done: @escaping Done) {
    let data: Data
    do { data = try Self.line(object) } catch { return done(.failure(error)) }
    let start = queue.withLockedValue { q -> Bool in
      q.lines.append((data, done))
      defer { q.writing = true }
      return !q.writing
    }
    if start { worker.async { self.drain() } }
  }

  private func drain() {
    while true {
      let batch = queue.withLockedValue { q -> [(Data, Done)] in
        defer { q.lines = [] }
        if q.lines.isEmpty { q.writing = false }
        return q.lines
      }
      guard !batch.isEmpty else { return }
      var bytes = Data()
      for (line, _) in batch { bytes += line }
      let result: Result<Void, any Error> = Result { try Self.append(bytes, to: fd) }
      for (_, done) in batch { done(result) }
    }
  }

  private static func append(_ bytes: Data, to fd: Int32) throws {
    let failed = bytes.withUnsafeBytes { writeWholeAndSync($0, to: fd) }
    guard failed == 0 else { throw Failure(description: "write fences.log: errno \(failed)") }
  }

  private static func write(_ bytes: Data, to path: String) throws {
    let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Failure(description: "open \(path): errno \(errno)") }
    defer { close(fd) }
    try append(bytes, to: fd)
  }
}
