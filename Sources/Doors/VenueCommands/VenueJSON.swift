import Accounts
import Commands
import ErrorLines
import Foundation
import RESP
import Venues

/// Venues, visits, dependants and exposures as their replies show them: JSON objects, keys
/// sorted, times in ISO 8601 to the second.
enum VenueJSON {
  static func venue(_ venue: Venue) -> [String: Any] {
    var object: [String: Any] = [
      "id": venue.id, "ownerId": venue.ownerId, "name": venue.name, "lon": venue.longitude,
      "lat": venue.latitude, "createdAt": time(venue.createdAt.timeIntervalSince1970),
    ]
    if let address = venue.address { object["address"] = address }
    return object
  }

  /// A visit as the account that made it sees it (and the venue's owner, with `who`).
  static func visit(_ visit: Visit, _ venues: Venues, who accounts: Accounts? = nil) -> [String:
    Any]
  {
    var object: [String: Any] = [
      "id": visit.id, "venueId": visit.venueId, "checkedInAt": time(visit.start),
      "checkedOutAt": visit.isOpen ? NSNull() : time(visit.end) as Any, "isOpen": visit.isOpen,
    ]
    if let venue = venues.venue(visit.venueId) { object["venueName"] = venue.name }
    addDependant(visit.dependantId, venues, to: &object)
    if let accounts {
      object["accountId"] = visit.accountId
      if let account = accounts.account(visit.accountId) { object["username"] = account.username }
    }
    return object
  }

  /// A visitor as the venue's owner sees it: an account's visit, or a guest's with the name and
  /// contact it left (`guest`, and no `accountId`).
  static func visitor(_ visitor: VenueVisitor, _ venues: Venues, _ accounts: Accounts)
    -> [String: Any]
  {
    switch visitor {
    case .account(let visit): return Self.visit(visit, venues, who: accounts)
    case .guest(let guest):
      var object: [String: Any] = [
        "id": guest.id, "venueId": guest.venueId, "checkedInAt": time(guest.start),
        "checkedOutAt": time(guest.end), "isOpen": false, "guest": Self.guest(guest),
      ]
      if let venue = venues.venue(guest.venueId) { object["venueName"] = venue.name }
      return object
    }
  }

  static func guest(_ guest: GuestVisit) -> [String: Any] {
    var object: [String: Any] = ["name": guest.name]
    if let email = guest.email { object["email"] = email }
    if let phone = guest.phone { object["phone"] = phone }
    return object
  }

  static func checkIn(_ checkIn: CheckIn, _ venues: Venues) -> [String: Any] {
    var object = checkIn.visit.map { visit($0, venues) } ?? [:]
    if !checkIn.dependants.isEmpty {
      object["dependants"] = checkIn.dependants.map { visit($0, venues) }
    }
    return object
  }

  static func dependant(_ dependant: Dependant) -> [String: Any] {
    [
      "id": dependant.id, "name": dependant.name,
      "createdAt": time(dependant.createdAt.timeIntervalSince1970),
    ]
  }

  /// For a health authority: who was there (an account, or a guest's name and contact), where,
  /// and for how long together.
  static func exposure(_ exposure: Exposure, _ venues: Venues, _ accounts: Accounts)
    -> [String: Any]
  {
    var object: [String: Any] = [
      "venueId": exposure.venueId, "visitId": exposure.visitId, "from": time(exposure.from),
      "to": time(exposure.to), "minutes": (exposure.minutes * 100).rounded() / 100,
    ]
    if let guest = exposure.guest {
      object["guest"] = Self.guest(guest)
    } else {
      object["accountId"] = exposure.accountId
    }
    if let account = accounts.account(exposure.accountId) { object["username"] = account.username }
    if let venue = venues.venue(exposure.venueId) { object["venueName"] = venue.name }
    addDependant(exposure.dependantId, venues, to: &object)
    return object
  }

  /// What a visitor was told: the venue and the window, never who.
  static func notice(_ notice: ExposureNotice, _ venues: Venues) -> [String: Any] {
    var object: [String: Any] = [
      "venueId": notice.venueId, "venueName": notice.venueName, "from": time(notice.from),
      "to": time(notice.to), "reportedAt": time(notice.reportedAt),
    ]
    addDependant(notice.dependantId, venues, to: &object)
    return object
  }

  private static func addDependant(_ id: Int64, _ venues: Venues, to object: inout [String: Any]) {
    guard id != 0 else { return }
    object["dependantId"] = id
    if let dependant = venues.dependant(id) { object["dependant"] = dependant.name }
  }

  static func time(_ seconds: Double) -> String { Venues.timestamp(seconds) }

  static func bulk(_ object: Any) -> RESPValue { .json(object) }

  static func array(_ objects: [[String: Any]]) -> RESPValue { .array(objects.map(bulk)) }
}

extension Result where Failure == VenueError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
