import DomainSupport
import Foundation

/// Uploaded files (pin photos, documents, profile images) as files of their own in the data
/// directory, so the SQLite file does not grow by every photo.
///
/// The rule that keeps a file and its row together across a crash: a file is written and made
/// durable (`write`) before the row that names it commits, and removed (`remove`) only after
/// the row's deletion has committed. A crash between the two leaves a file no row names, never
/// a row without its file; `sweep` removes such files at startup, once the rows are loaded.
public final class MediaFiles: Sendable {
  public let directory: String

  /// Opens (creating if needed) the directory of files.
  public init(directory: String) throws {
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  /// Writes `bytes` as a new file, durable when this returns (file and directory entry
  /// fsynced), and returns its name: random, so names are never reused or guessed.
  public func write(_ bytes: [UInt8], type: MediaType) throws -> String {
    let name = Self.newName(type)
    let temporary = path(Self.temporaryPrefix + name)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw MediaFilesError.posix(errno, temporary) }
    do {
      defer { close(fd) }
      let failed = bytes.withUnsafeBytes { writeWholeAndSync($0, to: fd) }
      guard failed == 0 else { throw MediaFilesError.posix(failed, temporary) }
    } catch {
      unlink(temporary)
      throw error
    }
    // Renamed whole, so no reader ever sees a partial file under its final name.
    guard rename(temporary, path(name)) == 0 else {
      let failure = MediaFilesError.posix(errno, temporary)
      unlink(temporary)
      throw failure
    }
    try syncDirectory()
    return name
  }

  /// The file's bytes.
  public func read(_ name: String) throws -> [UInt8] {
    guard Self.isValidName(name) else { throw MediaFilesError.badName(name) }
    guard let data = FileManager.default.contents(atPath: path(name)) else {
      throw MediaFilesError.missing(name)
    }
    return [UInt8](data)
  }

  /// The file's size in bytes, nil if it is not there.
  public func size(_ name: String) -> Int? {
    guard Self.isValidName(name),
      let attributes = try? FileManager.default.attributesOfItem(atPath: path(name))
    else { return nil }
    return (attributes[.size] as? NSNumber)?.intValue
  }

  /// Removes a file whose row's deletion has committed. A file already gone is not an error.
  public func remove(_ name: String) {
    guard Self.isValidName(name) else { return }
    unlink(path(name))
  }

  /// Removes every file not in `keeping` (the names the loaded rows hold), and any partly
  /// written one; returns how many went. Call it once at startup, before any write.
  @discardableResult
  public func sweep(keeping: Set<String>) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    var removed = 0
    for name in names where !keeping.contains(name) {
      if unlink(path(name)) == 0 { removed += 1 }
    }
    return removed
  }

  private func path(_ name: String) -> String { directory + "/" + name }

  private func syncDirectory() throws {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw MediaFilesError.posix(errno, directory) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw MediaFilesError.posix(errno, directory) }
  }

  static let temporaryPrefix = ".partial-"

  /// A new name for bytes of `type`: random, never reused or guessed.
  public static func newName(_ type: MediaType) -> String {
    randomName() + "." + type.fileExtension
  }

  /// 128 random bits as 32 hex digits.
  static func randomName() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let hex = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  /// A name `write` could have made: 32 hex digits and a known extension. Anything else (a
  /// path, `..`) is refused before it reaches the file system.
  public static func isValidName(_ name: String) -> Bool {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0].utf8.count == 32,
      parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return false }
    return MediaType.allCases.contains { $0.fileExtension == parts[1] }
  }
}

public enum MediaFilesError: Error, CustomStringConvertible, Equatable {
  case posix(Int32, String)
  case badName(String)
  case missing(String)

  public var description: String {
    switch self {
    case .posix(let code, let path): "\(path): \(String(cString: strerror(code)))"
    case .badName(let name): "not a media file name: \(name)"
    case .missing(let name): "media file \(name) is missing"
    }
  }
}
