import Foundation
import MediaFiles

/// A private document: a vaccination record or a test result, as a PDF, JPEG or PNG file.
public struct Document: Sendable, Equatable, Codable {
  public enum Kind: String, Sendable, CaseIterable, Codable {
    case vaccination = "VACCINATION"
    case testPositive = "TEST-POSITIVE"
    case testNegative = "TEST-NEGATIVE"
  }

  public let id: Int64
  public let ownerId: Int64
  public let kind: Kind
  /// The day of the vaccination or the test, `yyyy-mm-dd` (UTC).
  public let day: String
  public let type: MediaType
  public let size: Int
  public let createdAt: Date
  /// The file's name in the documents' directory.
  public let file: String

  public init(
    id: Int64, ownerId: Int64, kind: Kind, day: String, type: MediaType, size: Int,
    createdAt: Date, file: String
  ) {
    self.id = id
    self.ownerId = ownerId
    self.kind = kind
    self.day = day
    self.type = type
    self.size = size
    self.createdAt = createdAt
    self.file = file
  }

  /// The day as the instant it starts, UTC.
  public var date: Date { Document.parse(day)! }

  /// A real calendar day written `yyyy-mm-dd`, as the instant it starts (UTC); nil otherwise.
  static func parse(_ text: String) -> Date? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
    else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(year: year, month: month, day: day)
    guard let date = calendar.date(from: components),
      calendar.dateComponents([.year, .month, .day], from: date) == components
    else { return nil }
    return date
  }
}

/// Why a document operation was refused (the doors turn it into their error replies, `ErrorLines`).
public enum DocumentError: Error, Sendable, Equatable {
  case invalid(field: String, reason: String)
  case tooLarge(Int)
  case limit(Int)
  /// The document is another account's.
  case noPermission
  case notFound
  case notPersisted(String)
  /// The store wrote nothing (unreachable, or this node waits for ids): send it again.
  case tryAgain(String)
}
