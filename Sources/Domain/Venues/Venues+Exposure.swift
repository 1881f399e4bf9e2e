import Accounts
import Durability
import Foundation

extension Venues {
  /// Who asks for an exposure search: the admin, or an account (which needs the health role).
  public enum Requester: Sendable {
    case admin
    case account(Int64)
  }

  /// Every other account's visit (its own or a dependant's) that overlapped one of the
  /// subject's own visits in `from..<to` at the same venue, with the overlap, earliest first.
  /// An open visit counts until now; visits that only touch do not overlap. For the admin or a
  /// health authority only.
  public func exposures(by requester: Requester, of subject: Int64, from: Double, to: Double)
    -> Result<[Exposure], VenueError>
  {
    if case .account(let id) = requester, accounts.account(id)?.role != .health {
      return .failure(.noPermission("EXPOSURE is for health authorities"))
    }
    guard accounts.account(subject) != nil else { return .failure(.notFound("no such account")) }
    guard from < to else { return .failure(.invalid(field: "FROM", reason: "must be before TO")) }
    let now = now
    return .success(state.withLock { s in Self.exposures(of: subject, from, to, now, s) })
  }

  static func exposures(
    of subject: Int64, _ from: Double, _ to: Double, _ now: Double, _ s: State
  ) -> [Exposure] {
    var found: [Exposure] = []
    for id in s.ofAccount[subject] ?? [] {
      let mine = s.visits.at(id)
      if mine.start >= to { break }
      guard mine.accountId == subject, mine.dependantId == 0 else { continue }
      let low = max(mine.start, from)
      let high = min(mine.end(now: now), to)
      guard low < high else { continue }
      let at = s.atVenue[mine.venueId] ?? AtVenue()
      func consider(_ other: Visit) {
        guard other.accountId != subject, other.accountId != 0 else { return }
        let a = max(low, other.start)
        let b = min(high, other.end(now: now))
        guard a < b else { return }
        found.append(
          Exposure(
            accountId: other.accountId, dependantId: other.dependantId, venueId: other.venueId,
            visitId: other.id, from: a, to: b))
      }
      // A visit kept short (at most `longVisit`) that overlaps started after low - longVisit.
      var (first, last) = (0, at.ids.count)
      while first < last {
        let mid = (first + last) / 2
        if s.visits.at(at.ids[mid]).start <= low - longVisit { first = mid + 1 } else { last = mid }
      }
      for i in first..<at.ids.count {
        let other = s.visits.at(at.ids[i])
        if other.start >= high { break }
        if !at.long.contains(other.id) { consider(other) }
      }
      for other in at.long { consider(s.visits.at(other)) }
      for guest in guests(at: mine.venueId, overlapping: low, high, s) {
        found.append(
          Exposure(
            accountId: 0, dependantId: 0, venueId: guest.venueId, visitId: guest.id,
            from: max(low, guest.start), to: min(high, guest.end), guest: guest))
      }
    }
    return found.sorted {
      ($0.from, $0.venueId, $0.accountId, $0.visitId) < (
        $1.from, $1.venueId, $1.accountId, $1.visitId
      )
    }
  }

  /// Tells every visitor whose visit overlapped one of the account's own in the days before its
  /// positive test (`reportDays`) up to now: each hears the venue and the window, rounded out to
  /// whole hours, and never who (pub/sub `account:<id>` once durable, and `notices`; a guest,
  /// by mail to the email it left, once a visit). Refused without a positive test on file.
  /// Answers how many notices were new.
  public func report(account: Int64, _ done: @escaping Done<Int>) {
    guard let tested = configuration.positiveTest?(account) else {
      return done(.failure(.notFound("no positive test result on file")))
    }
    let now = now
    let from = tested.timeIntervalSince1970 - configuration.reportDays * 86_400
    let (fresh, guests) = state.withLock { s -> ([ExposureNotice], [GuestMail]) in
      var fresh: [ExposureNotice] = []
      var guests: [GuestMail] = []
      for exposure in Self.exposures(of: account, from, now, now, s) {
        guard let venue = s.venues[exposure.venueId] else { continue }
        let (windowFrom, windowTo) = (
          (exposure.from / 3600).rounded(.down) * 3600, (exposure.to / 3600).rounded(.up) * 3600
        )
        if let guest = exposure.guest {
          // Told once a visit, through the email it left (a phone's is for the authority).
          guard let email = guest.email, s.guests[guest.id]?.notified == false,
            !guests.contains(where: { $0.id == guest.id })
          else { continue }
          s.guests[guest.id]?.notified = true
          let mail = Self.exposureMail(guest, venue: venue.name, from: windowFrom, to: windowTo)
          guests.append(GuestMail(id: guest.id, to: email, subject: mail.subject, body: mail.body))
          continue
        }
        let notice = ExposureNotice(
          accountId: exposure.accountId, dependantId: exposure.dependantId, venueId: venue.id,
          venueName: venue.name, from: windowFrom, to: windowTo, reportedAt: now)
        let known = (s.notices[notice.accountId] ?? []) + fresh
        guard !known.contains(where: { $0.sameWindow(notice) }) else { continue }
        fresh.append(notice)
      }
      for notice in fresh { s.notices[notice.accountId, default: []].append(notice) }
      return (fresh, guests)
    }
    let messages = fresh.map { notice in
      (
        channel: "account:\(notice.accountId)",
        text: Self.message(notice, dependant(notice.dependantId))
      )
    }
    commit(
      [
        storage.inserting(fresh),
        Publish(notifier: notifier, messages: messages),
      ] + guests.map { syncGuest($0.id) } + [GuestMails(venues: self, mails: guests)],
      answer: fresh.count + guests.count, done)
  }

  /// The exposures the account was told of, the latest first.
  public func notices(account: Int64) -> [ExposureNotice] {
    state.withLock { $0.notices[account] ?? [] }.reversed()
  }

  /// A notice as its visitor hears it: the venue and the window, never who.
  static func message(_ notice: ExposureNotice, _ dependant: Dependant?) -> String {
    var object: [String: Any] = [
      "event": "exposure", "venueId": notice.venueId, "venueName": notice.venueName,
      "from": timestamp(notice.from), "to": timestamp(notice.to),
    ]
    if let dependant { object["dependant"] = dependant.name }
    let data = try? JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// ISO 8601 to the second, as every reply writes times.
  public static func timestamp(_ seconds: Double) -> String {
    Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
  }

  /// Told of deleted accounts: their venues (with every visit to them), visits, dependants,
  /// favorites and notices go.
  struct Observer: AccountObserver {
    let venues: Venues

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      venues.state.withLock { s in
        let owned = s.byOwner.removeValue(forKey: id) ?? []
        for venueId in owned {
          if let venue = s.venues.removeValue(forKey: venueId) {
            s.byCode[venue.code] = nil
            if let previous = venue.previousCode { s.byPreviousCode[previous] = nil }
          }
          for guest in s.guestsAt.removeValue(forKey: venueId) ?? [] { s.guests[guest] = nil }
          for visit in s.atVenue.removeValue(forKey: venueId)?.ids ?? [] {
            Self.forget(visit, in: &s)
          }
          for account in s.favorites.keys { s.favorites[account]?[venueId] = nil }
        }
        for visit in s.ofAccount.removeValue(forKey: id) ?? [] { Self.forget(visit, in: &s) }
        for dependant in s.dependantsOf.removeValue(forKey: id) ?? [] {
          s.dependants[dependant] = nil
        }
        s.favorites[id] = nil
        s.notices[id] = nil
      }
      // The rows go with the account's (ON DELETE CASCADE).
      return []
    }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }

    static func forget(_ id: Int64, in s: inout State) {
      guard let visit = s.visits[id] else { return }
      if visit.isOpen {
        s.open[Person(account: visit.accountId, dependant: visit.dependantId)] = nil
      }
      s.atVenue[visit.venueId]?.long.remove(id)
      s.visits.delete(id)
    }
  }
}

extension ExposureNotice {
  /// The same visitor told of the same venue and window.
  func sameWindow(_ other: ExposureNotice) -> Bool {
    accountId == other.accountId && dependantId == other.dependantId && venueId == other.venueId
      && from == other.from && to == other.to
  }
}
