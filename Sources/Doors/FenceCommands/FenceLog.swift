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
/// dropped) and the file rewritten with the fences alive, by a new file renamed over it; so is
/// it while the server runs, once most of its lines are of fences gone (`rewrite`), so that
/// fences set and expiring for months do not fill the disk.
final class FenceLog: Sendable {
  typealias Done = @Sendable (Result<Void, any Error>) -> Void

  private enum Item {
    case line(Data, Done)
    /// The whole log anew: these fences' lines.
    case rewrite(Data)
  }

  private struct Queue {
    var items: [Item] = []
    var writing = false
  }

  let path: String
  private let directory: String
  /// Replaced by a rewrite, on the log's thread.
  private let fd: NIOLockedValueBox<Int32>
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
    let fd = try replace(path, in: directory, with: try lines(records))
    return (FenceLog(path: path, directory: directory, fd: fd), records)
  }

  /// The `set` lines of `records`.
  static func lines(_ records: [[String: Any]]) throws -> Data {
    var text = Data()
    for record in records { text += try line(["set": record]) }
    return text
  }

  /// Writes `text` to a new file, renames it over `path` (durably), and opens it to append.
  private static func replace(_ path: String, in directory: String, with text: Data) throws -> Int32
  {
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
    return fd
  }

  private init(path: String, directory: String, fd: Int32) {
    self.path = path
    self.directory = directory
    self.fd = NIOLockedValueBox(fd)
  }

  deinit { close(fd.withLockedValue { $0 }) }

  static func line(_ object: [String: Any]) throws -> Data {
    // Unsorted: sorting the keys (ICU's collation) took half of a FENCE.SET.
    var data = try JSONSerialization.data(withJSONObject: object)
    data.append(UInt8(ascii: "\n"))
    return data
  }

  /// Appends `object`'s line; `done` runs once it is on disk (or could not be).
  func append(_ object: [String: Any], done: @escaping Done) {
    let data: Data
    do { data = try Self.line(object) } catch { return done(.failure(error)) }
    submit(.line(data, done))
  }

  /// Replaces the log, after the lines appended before, with `records`' (the fences alive
  /// then, in the order they were set); a failure leaves the old log, which still holds them.
  func rewrite(_ records: [[String: Any]]) {
    guard let text = try? Self.lines(records) else { return }
    submit(.rewrite(text))
  }

  private func submit(_ item: Item) {
    let start = queue.withLockedValue { q -> Bool in
      q.items.append(item)
      defer { q.writing = true }
      return !q.writing
    }
    if start { worker.async { self.drain() } }
  }

  private func drain() {
    while true {
      let batch = queue.withLockedValue { q -> [Item] in
        defer { q.items = [] }
        if q.items.isEmpty { q.writing = false }
        return q.items
      }
      guard !batch.isEmpty else { return }
      // The lines between rewrites in one write and one fsync.
      var bytes = Data()
      var waiting: [Done] = []
      func flush() {
        guard !waiting.isEmpty else { return }
        let fd = fd.withLockedValue { $0 }
        let result: Result<Void, any Error> = Result { try Self.append(bytes, to: fd) }
        for done in waiting { done(result) }
        (bytes, waiting) = (Data(), [])
      }
      for item in batch {
        switch item {
        case .line(let line, let done):
          bytes += line
          waiting.append(done)
        case .rewrite(let text):
          flush()
          if let fresh = try? Self.replace(path, in: directory, with: text) {
            close(
              fd.withLockedValue { old in
                defer { old = fresh }
                return old
              })
          }
        }
      }
      flush()
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
