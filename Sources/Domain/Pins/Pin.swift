import Cards
import Foundation

/// A photo pin: a place, the circle it may be viewed from, what its owner said of it, its
/// photo (a file, named here) and its votes.
public struct Pin: Sendable, Equatable {
  public let id: Int64
  public let ownerId: Int64
  public let longitude: Double
  public let latitude: Double
  /// Whole metres, 10 to 50,000: exact as the index's `Float`, so the index and `PIN.OPEN`
  /// compare with the same number.
  public let radius: Double
  public let caption: String?
  public let takenAt: Date?
  public let createdAt: Date
  public var photo: PinPhoto?
  public var ups = 0
  public var downs = 0

  public var score: Int { ups - downs }

  /// A pin as stored, before its votes are counted.
  public init(
    id: Int64, ownerId: Int64, longitude: Double, latitude: Double, radius: Double,
    caption: String?, takenAt: Date?, createdAt: Date, photo: PinPhoto? = nil
  ) {
    self.id = id
    self.ownerId = ownerId
    self.longitude = longitude
    self.latitude = latitude
    self.radius = radius
    self.caption = caption
    self.takenAt = takenAt
    self.createdAt = createdAt
    self.photo = photo
  }

  /// The pin as every reply shows it (searches, PIN.AT, PIN.ADD): never the photo's bytes or
  /// file, only whether there is one and its kind and size.
  public func json(ownerName: String?) -> JSONText {
    var object = JSONText()
    object.add("id", id)
    object.add("ownerId", ownerId)
    object.add("owner", ownerName)
    object.add("lon", number: longitude)
    object.add("lat", number: latitude)
    object.add("radius", number: radius)
    object.add("caption", caption)
    object.add("takenAt", takenAt.map(Self.timestamp))
    object.add("createdAt", Self.timestamp(createdAt))
    object.add("score", Int64(score))
    object.add("ups", Int64(ups))
    object.add("downs", Int64(downs))
    object.add("hasPhoto", photo != nil)
    if let photo {
      var p = JSONText()
      p.add("type", photo.type)
      p.add("width", Int64(photo.width))
      p.add("height", Int64(photo.height))
      p.add("bytes", Int64(photo.bytes))
      object.add("photo", object: p)
    }
    return object
  }

  static func timestamp(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }
}

/// A pin's photo: its file in the data directory and what it is.
public struct PinPhoto: Sendable, Equatable, Codable {
  /// The file's name, as the media files gave it.
  public let name: String
  /// Its media type (`image/jpeg`, `image/png`).
  public let type: String
  public let width: Int
  public let height: Int
  public let bytes: Int

  public init(name: String, type: String, width: Int, height: Int, bytes: Int) {
    self.name = name
    self.type = type
    self.width = width
    self.height = height
    self.bytes = bytes
  }
}

/// What `PIN.ADD`'s JSON may say: `caption` (up to 500 characters) and `takenAt` (ISO 8601).
struct PinFields {
  var caption: String?
  var takenAt: Date?

  static let maxCaption = 500

  static func parse(_ json: String) throws(PinError) -> PinFields {
    guard let data = json.data(using: .utf8),
      let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
      let object = value as? [String: Any]
    else { throw .invalid("json", "must be a JSON object") }
    var fields = PinFields()
    for (key, value) in object {
      switch key {
      case "caption":
        guard let text = value as? String, text.count <= maxCaption else {
          throw .invalid("caption", "must be text of at most \(maxCaption) characters")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        fields.caption = trimmed.isEmpty ? nil : trimmed
      case "takenAt":
        guard let text = value as? String, let date = Self.date(text) else {
          throw .invalid("takenAt", "must be an ISO 8601 date and time")
        }
        guard date.timeIntervalSinceNow < 86_400 else {
          throw .invalid("takenAt", "is in the future")
        }
        fields.takenAt = date
      default:
        throw .invalid(key, "is not a pin field (caption, takenAt)")
      }
    }
    return fields
  }

  /// ISO 8601 with or without fractional seconds, kept to the second.
  static func date(_ text: String) -> Date? {
    let plain = Date.ISO8601FormatStyle()
    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    guard let date = (try? plain.parse(text)) ?? (try? fractional.parse(text)) else { return nil }
    return Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
  }
}
