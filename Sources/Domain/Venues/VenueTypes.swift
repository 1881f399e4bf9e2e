import Foundation

/// A place people check in to; its owner alone sees its code and its visitors.
public struct Venue: Sendable, Equatable, Codable {
  public let id: Int64
  public let ownerId: Int64
  public let name: String
  public let longitude: Double
  public let latitude: Double
  /// As the owner gave it (geocoded when no coordinates were given).
  public let address: String?
  /// What the QR code holds: never in a venue's replies but VENUE.CODE's.
  public internal(set) var code: String
  public let createdAt: Date
  /// The code the last rotation replaced: its check-in page says the code changed.
  public internal(set) var previousCode: String?

  public init(
    id: Int64, ownerId: Int64, name: String, longitude: Double, latitude: Double,
    address: String?, code: String, createdAt: Date, previousCode: String? = nil
  ) {
    self.id = id
    self.ownerId = ownerId
    self.name = name
    self.longitude = longitude
    self.latitude = latitude
    self.address = address
    self.code = code
    self.createdAt = createdAt
    self.previousCode = previousCode
  }
}

/// A visitor without an account, checked in from the venue's page with a name and a way to
/// reach them (an email, a phone, or both). A guest cannot check out: the stay ends
/// `Configuration.guestStay` after the check-in.
public struct GuestVisit: Sendable, Equatable, Codable {
  public let id: Int64
  public let venueId: Int64
  public let name: String
  public let email: String?
  public let phone: String?
  /// Seconds since 1970.
  public let start: Double
  public let end: Double
  /// Mailed of an exposure already (a guest hears of one visit once).
  public internal(set) var notified: Bool

  public init(
    id: Int64, venueId: Int64, name: String, email: String?, phone: String?, start: Double,
    end: Double, notified: Bool
  ) {
    self.id = id
    self.venueId = venueId
    self.name = name
    self.email = email
    self.phone = phone
    self.start = start
    self.end = end
    self.notified = notified
  }
}

/// Who was at a venue: an account (or its dependant), or a guest.
public enum VenueVisitor: Sendable, Equatable {
  case account(Visit)
  case guest(GuestVisit)
}

/// A family member without a login, checked in with its account.
public struct Dependant: Sendable, Equatable, Codable {
  public let id: Int64
  public let accountId: Int64
  public let name: String
  public internal(set) var removed: Bool
  public let createdAt: Date

  public init(id: Int64, accountId: Int64, name: String, removed: Bool, createdAt: Date) {
    self.id = id
    self.accountId = accountId
    self.name = name
    self.removed = removed
    self.createdAt = createdAt
  }
}

/// One stay at a venue, of an account or of a dependant checked in with it. Times are seconds
/// since 1970; `end` is infinity while the visit is open.
public struct Visit: Sendable, Equatable {
  public let id: Int64
  public let venueId: Int64
  /// The account that checked in (a dependant's account); 0 once deleted.
  public internal(set) var accountId: Int64
  /// 0: the account itself.
  public let dependantId: Int64
  public let start: Double
  public internal(set) var end: Double

  public init(
    id: Int64, venueId: Int64, accountId: Int64, dependantId: Int64, start: Double, end: Double
  ) {
    self.id = id
    self.venueId = venueId
    self.accountId = accountId
    self.dependantId = dependantId
    self.start = start
    self.end = end
  }

  public var isOpen: Bool { end == .infinity }

  /// The end, an open visit counting until `now`.
  public func end(now: Double) -> Double { isOpen ? max(start, now) : end }
}

/// Another visit that overlapped one of the subject's, at the same venue: what EXPOSURE
/// answers (a health authority learns who). A guest's has account 0, its guest visit's id,
/// and the guest.
public struct Exposure: Sendable, Equatable {
  public let accountId: Int64
  public let dependantId: Int64
  public let venueId: Int64
  public let visitId: Int64
  /// The overlap, seconds since 1970.
  public let from: Double
  public let to: Double
  public var guest: GuestVisit? = nil

  public var minutes: Double { (to - from) / 60 }
}

/// What a visitor is told of an exposure: the venue and a window, never who.
public struct ExposureNotice: Sendable, Equatable, Hashable, Codable {
  public let accountId: Int64
  /// 0: the account itself, else its dependant that was there.
  public let dependantId: Int64
  public let venueId: Int64
  public let venueName: String
  public let from: Double
  public let to: Double
  public let reportedAt: Double

  public init(
    accountId: Int64, dependantId: Int64, venueId: Int64, venueName: String, from: Double,
    to: Double, reportedAt: Double
  ) {
    self.accountId = accountId
    self.dependantId = dependantId
    self.venueId = venueId
    self.venueName = venueName
    self.from = from
    self.to = to
    self.reportedAt = reportedAt
  }
}

/// Why a venue operation was refused (the doors turn it into their error replies, `ErrorLines`).
public enum VenueError: Error, Sendable, Equatable {
  case invalid(field: String, reason: String)
  case notFound(String)
  case noPermission(String)
  /// The position given is farther from the venue than allowed, by this many metres.
  case notInRange(Double)
  case limit(String)
  case geocoding(String)
  case notPersisted(String)
  /// The store wrote nothing (unreachable, or this node waits for ids): send it again.
  case tryAgain(String)
}
