import CSV
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

public enum InputFormat: String, Sendable, CaseIterable {
  case csv
  case jsonl

  /// By the file's extension: `.jsonl` and `.ndjson` are JSON Lines, anything else CSV.
  public static func guess(_ path: String) -> InputFormat {
    let ext = (path as NSString).pathExtension.lowercased()
    return ext == "jsonl" || ext == "ndjson" ? .jsonl : .csv
  }
}

/// One data row: its number (1 for the first row after a CSV header or the first line of
/// JSON Lines), its cells by column name, or why it cannot be read.
struct RawRow {
  let row: Int
  var cells: [String: Any] = [:]
  var problem: String?
}

/// Streams an input's rows, one at a time, so that memory does not grow with the file.
protocol RowSource: AnyObject {
  /// About how many data rows there are (for progress; quoted newlines may throw it off).
  var estimatedRows: Int { get }
  func next() throws(ImportError) -> RawRow?
}

enum RowSources {
  /// Opens `path`; the columns are checked before this returns, so a bad header (or, in JSON
  /// Lines, any line's unknown name) is refused before anything is written.
  static func open(_ path: String, format: InputFormat) throws(ImportError) -> any RowSource {
    switch format {
    case .csv: try CSVRows(path)
    case .jsonl: try JSONLines(path)
    }
  }
}

final class CSVRows: RowSource {
  private let reader: CSVReader
  private let header: [String]
  private var row = 0
  let estimatedRows: Int

  init(_ path: String) throws(ImportError) {
    guard let stream = InputStream(fileAtPath: path) else {
      throw .unreadable(path: path, reason: "no such file")
    }
    do {
      reader = try CSVReader(stream: stream, hasHeaderRow: true)
    } catch {
      throw .unreadable(path: path, reason: "\(error)")
    }
    // Spreadsheets often start a UTF-8 CSV with a byte order mark.
    header = (reader.headerRow ?? []).map {
      $0.trimmingCharacters(in: .whitespaces.union(["\u{FEFF}"]))
    }
    guard !header.isEmpty, header != [""] else { throw .badColumns("the CSV has no header row") }
    try Columns.check(header)
    estimatedRows = max(0, try LineFile.countLines(path) - 1)
  }

  func next() throws(ImportError) -> RawRow? {
    while let fields = reader.next() {
      row += 1
      if fields.count == 1, fields[0].isEmpty { continue }
      guard fields.count == header.count else {
        return RawRow(
          row: row, problem: "has \(fields.count) fields; the header has \(header.count)")
      }
      var cells: [String: Any] = [:]
      for (name, value) in zip(header, fields) { cells[name] = value }
      return RawRow(row: row, cells: cells)
    }
    // CSV.swift ends every stream with cannotReadFile: its reader's way of saying "end of file".
    if let error = reader.error, !Self.isEnd(error) {
      throw .badInput(row: row + 1, reason: "\(error)")
    }
    return nil
  }

  private static func isEnd(_ error: any Error) -> Bool {
    if case CSVError.cannotReadFile = error { return true }
    return false
  }
}

final class JSONLines: RowSource {
  private let file: LineFile
  private var row = 0
  let estimatedRows: Int

  /// Reads the file once first: JSON Lines has no header, and an unknown name on any line must
  /// stop the import before it writes.
  init(_ path: String) throws(ImportError) {
    let check = try LineFile(path)
    var names = Set<String>()
    var count = 0
    while let line = check.next() {
      guard !line.isEmpty else { continue }
      count += 1
      if let object = Self.object(line) { names.formUnion(object.keys) }
    }
    let unknown = names.subtracting(Columns.known)
    if !unknown.isEmpty { throw .unknownColumns(unknown.sorted()) }
    for name in Columns.required where !names.contains(name) && count > 0 {
      throw .badColumns("missing column \(name)")
    }
    estimatedRows = count
    file = try LineFile(path)
  }

  func next() throws(ImportError) -> RawRow? {
    while let line = file.next() {
      guard !line.isEmpty else { continue }
      row += 1
      guard let object = Self.object(line) else {
        return RawRow(row: row, problem: "not a JSON object")
      }
      return RawRow(row: row, cells: object)
    }
    return nil
  }

  private static func object(_ line: [UInt8]) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
  }
}

/// A file read a line at a time through stdio's buffer.
final class LineFile {
  private let file: UnsafeMutablePointer<FILE>
  private var buffer: UnsafeMutablePointer<CChar>?
  private var capacity = 0

  init(_ path: String) throws(ImportError) {
    guard let file = fopen(path, "r") else {
      throw .unreadable(path: path, reason: String(cString: strerror(errno)))
    }
    self.file = file
  }

  deinit {
    fclose(file)
    free(buffer)
  }

  /// The next line without its line break (and a trailing CR), or nil at the end.
  func next() -> [UInt8]? {
    let length = getline(&buffer, &capacity, file)
    guard length >= 0, let buffer else { return nil }
    var end = length
    while end > 0, buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D { end -= 1 }
    return buffer.withMemoryRebound(to: UInt8.self, capacity: end) {
      Array(UnsafeBufferPointer(start: $0, count: end))
    }
  }

  /// Counts line breaks (plus an unterminated last line), 64 KiB at a time.
  static func countLines(_ path: String) throws(ImportError) -> Int {
    let file = try LineFile(path)
    var lines = 0
    var last: UInt8 = 0x0A
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 1 << 16, file.file) }
      if read <= 0 { break }
      for i in 0..<read where chunk[i] == 0x0A { lines += 1 }
      last = chunk[read - 1]
    }
    return lines + (last == 0x0A ? 0 : 1)
  }
}
