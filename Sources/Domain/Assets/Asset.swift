import Foundation
import MediaFiles
import RateLimits

/// An uploaded file of an account: a profile image, a logo or a CV, served at `/a/<id>`.
public struct Asset: Sendable, Equatable, Codable {
  /// 32 random hex digits, independent of the content.
  public let id: String
  public let ownerId: Int64
  public let kind: AssetKind
  public let type: MediaType
  public let bytes: Int
  public let width: Int?
  public let height: Int?
  public let createdAt: Date

  public init(
    id: String, ownerId: Int64, kind: AssetKind, type: MediaType, bytes: Int, width: Int?,
    height: Int?, createdAt: Date
  ) {
    self.id = id
    self.ownerId = ownerId
    self.kind = kind
    self.type = type
    self.bytes = bytes
    self.width = width
    self.height = height
    self.createdAt = createdAt
  }

  /// The file's name in the assets' folder.
  public var file: String { id + "." + type.fileExtension }

  /// As ASSET.PUT and PUT /v1/assets answer it:
  /// `{"bytes","contentType","height","id","kind","url","width"}` (no size for a PDF).
  public func json(url: String) -> String {
    var object: [String: Any] = [
      "id": id, "url": url, "kind": kind.rawValue, "contentType": type.contentType,
      "bytes": bytes,
    ]
    if let width, let height {
      object["width"] = width
      object["height"] = height
    }
    let data = try? JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }
}

/// What an upload is for, and so which files it may be.
public enum AssetKind: String, Sendable, CaseIterable, Codable {
  case image, logo, cv

  /// By a command's argument or a query parameter, in any case.
  public init?(name: String) { self.init(rawValue: name.lowercased()) }

  var accepts: Set<MediaType> { self == .cv ? [.pdf] : [.jpeg, .png, .webp] }

  /// What the kind takes, in words.
  public var what: String {
    switch self {
    case .image: "an IMAGE must be a JPEG, PNG or WebP image"
    case .logo: "a LOGO must be a JPEG, PNG or WebP image"
    case .cv: "a CV must be a PDF"
    }
  }
}

/// Why an upload or a look-up was refused (the doors turn it into their error replies, `ErrorLines`).
public enum AssetError: Error, Sendable, Equatable {
  case badKind
  /// Empty, or larger than the configured bound (in bytes).
  case size(maximum: Int)
  /// Not a whole file of a type the kind takes (by its magic bytes and header).
  case type(AssetKind)
  /// An image of more pixels than the bound: it would take too much memory to decode.
  case pixels(width: Int, height: Int, maximum: Int)
  case noAccount
  case notFound
  case notPersisted(String)
  /// The upload would take the account's uploads past its quota: the bytes they use now.
  case quota(used: Int, quota: Int)
  /// A limit per account was reached.
  case limited(LimitExceeded)
  /// The store wrote nothing (unreachable): send it again.
  case tryAgain(String)
}
