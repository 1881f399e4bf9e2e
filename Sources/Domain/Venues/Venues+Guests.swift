import Accounts
import Durability
import Foundation

/// What a venue's check-in page (`/v/<code>`) shows for a code.
public enum CheckInPage: Sendable, Equatable {
  case venue(Venue)
  /// The code a rotation replaced: the page names the venue and says to scan its new code.
  case rotated(Venue)
  case unknown
}

extension Venues {
  public static let maxPhoneDigits = 15

  /// Where a venue's QR code sends a phone's camera.
  public func checkInLink(code: String) -> String {
    configuration.publicURL + "/v/" + code
  }

  /// The code a CHECKIN names: the code, or the URL of its page (what the QR code holds).
  public static func code(scanned text: String) -> String {
    guard text.contains("/v/"), let url = URLComponents(string: text),
      let range = url.path.range(of: "/v/", options: .backwards)
    else { return text }
    let code = url.path[range.upperBound...]
    return code.isEmpty || code.contains("/") ? text : String(code)
  }

  public func page(code: String) -> CheckInPage {
    state.withLock { s in
      if let id = s.byCode[code], let venue = s.venues[id] { return .venue(venue) }
      if let id = s.byPreviousCode[code], let venue = s.venues[id], venue.previousCode == code {
        return .rotated(venue)
      }
      return .unknown
    }
  }

  /// Checks a guest in at the venue whose code it scanned: a name, and an email or a phone (or
  /// both) to be told of an exposure through. `client` is the address it came from: at most
  /// `guestsPerAddress` an hour from one, and `guestsPerVenue` at one venue.
  public func checkInGuest(
    code: String, name text: String, email typedEmail: String?, phone typedPhone: String?,
    client: String,
    _ done: @escaping Done<GuestVisit>
  ) {
    let name: String
    switch Self.validName(text, field: "name") {
    case .success(let valid): name = valid
    case .failure(let error): return done(.failure(error))
    }
    let email = typedEmail?.trimmingCharacters(in: .whitespaces).nilIfEmpty
    let phone: String?
    switch Self.validPhone(typedPhone?.trimmingCharacters(in: .whitespaces).nilIfEmpty) {
    case .success(let valid): phone = valid
    case .failure(let error): return done(.failure(error))
    }
    if let email, Validation.problem(email: email) != nil {
      return done(.failure(.invalid(field: "email", reason: "not an email address")))
    }
    guard email != nil || phone != nil else {
      return done(.failure(.invalid(field: "contact", reason: "an email or a phone is needed")))
    }
    guard let venueId = state.withLock({ $0.byCode[code] }) else {
      return done(.failure(.notFound("no venue has this code")))
    }
    for (limit, key, what) in [
      (guestsByAddress, "address:\(client)", "guest check-ins an hour from one address"),
      (guestsByVenue, "venue:\(venueId)", "guest check-ins an hour at this venue"),
    ] {
      if let wait = limit.take([key]) {
        return done(.failure(.limit("at most \(limit.limit) \(what), retry after \(wait) s")))
      }
    }
    share(.guestCheckedIn(client: client, venue: venueId))
    let now = now
    let made = state.withLock { s -> Result<GuestVisit, VenueError> in
      guard s.venues[venueId]?.code == code else {
        return .failure(.notFound("no venue has this code"))
      }
      guard let id = Self.newId(storage.ids?.visits, &s.nextGuest) else {
        return .failure(Self.waitingForIds)
      }
      let guest = GuestVisit(
        id: id, venueId: venueId, name: name, email: email, phone: phone, start: now,
        end: now + configuration.guestStay, notified: false)
      Self.add(guest, to: &s)
      return .success(guest)
    }
    guard case .success(let guest) = made else { return done(made) }
    commit([syncGuest(guest.id)]) { [self] result in
      if case .failure(.tryAgain) = result {
        state.withLock { Self.forget(guest: guest.id, in: &$0) }
      }
      done(result.map { guest })
    }
  }

  /// A phone number as typed, kept as its digits (a leading + kept): 6 to 15 of them, with
  /// spaces, dots, dashes and brackets between.
  static func validPhone(_ text: String?) -> Result<String?, VenueError> {
    guard let text else { return .success(nil) }
    let invalid = VenueError.invalid(
      field: "phone", reason: "6 to \(maxPhoneDigits) digits, with an optional leading +")
    var digits = text.hasPrefix("+") ? "+" : ""
    for character in text.dropFirst(digits.count) {
      if let value = character.asciiValue, (48...57).contains(value) {
        digits.append(character)
      } else if !" .-()".contains(character) {
        return .failure(invalid)
      }
    }
    let count = digits.filter(\.isNumber).count
    return count >= 6 && count <= maxPhoneDigits ? .success(digits) : .failure(invalid)
  }

  func syncGuest(_ id: Int64) -> any DurableWrite {
    storage.syncingGuest(id) { [self] in state.withLock { $0.guests[id] } }
  }

  static func forget(guest id: Int64, in s: inout State) {
    guard let guest = s.guests.removeValue(forKey: id) else { return }
    s.guestsAt[guest.venueId]?.removeAll { $0 == id }
    if s.guestsAt[guest.venueId]?.isEmpty == true { s.guestsAt[guest.venueId] = nil }
  }

  /// The guests at the venue whose stay overlapped `low..<high`.
  static func guests(at venue: Int64, overlapping low: Double, _ high: Double, _ s: State)
    -> [GuestVisit]
  {
    guard let ids = s.guestsAt[venue] else { return [] }
    // A stay is at most `longVisit` long: one that overlaps started after low - longVisit.
    var (first, last) = (0, ids.count)
    while first < last {
      let mid = (first + last) / 2
      if s.guests[ids[mid]]!.start <= low - longVisit { first = mid + 1 } else { last = mid }
    }
    var found: [GuestVisit] = []
    for id in ids[first...] {
      let guest = s.guests[id]!
      if guest.start >= high { break }
      if guest.end > low { found.append(guest) }
    }
    return found
  }

  /// A time as a person reads it, in UTC: what a guest's mail and the check-in page show.
  public static func readableTime(_ seconds: Double) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
  }

  /// The mail a guest gets of an exposure: the venue and a window in whole hours (UTC), never
  /// who.
  static func exposureMail(_ guest: GuestVisit, venue: String, from: Double, to: Double) -> (
    subject: String, body: String
  ) {
    let time = readableTime
    let body = """
      Hello \(guest.name),

      You checked in as a guest at \(venue) on \(time(guest.start)).
      Someone who was there between \(time(from)) and \(time(to)) has since reported a
      positive test. This message does not say who.

      Watch for symptoms, and follow your health authority's advice.
      """
    return ("A possible exposure at \(venue)", body)
  }
}

/// A guest to be mailed of an exposure.
struct GuestMail: Sendable {
  let id: Int64
  let to: String
  let subject: String
  let body: String
}

/// Mails guests once the write that marks them told is durable, at most `guestMails` a day to
/// one address.
struct GuestMails: DurableWrite {
  let venues: Venues
  let mails: [GuestMail]

  func committed() {
    for mail in mails where venues.guestMails.take(["email:" + mail.to.lowercased()]) == nil {
      venues.accounts.mail(to: mail.to, subject: mail.subject, body: mail.body)
    }
  }
}

extension String {
  fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
