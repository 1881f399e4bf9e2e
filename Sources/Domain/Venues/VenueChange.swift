/// One venue write as every node applies it, in the order the shared store committed them
/// (`Venues.apply(followed:own:)`): what each write wrote.
public enum VenueChange: Sendable, Equatable, Codable {
  case venue(Venue)
  /// The venue's code as written; nil when the venue was gone.
  case code(venue: Int64, code: String?)
  case dependant(Dependant)
  case dependantRemoved(Int64)
  /// The visit as written; nil: deleted.
  case visit(id: Int64, StoredVisit?)
  /// When the account added the venue to its favorites; nil: not a favorite.
  case favorite(account: Int64, venue: Int64, addedAt: Double?)
  case notices([ExposureNotice])
  /// The guest visit as written; nil: gone.
  case guest(id: Int64, GuestVisit?)
}

/// A visit as JSON holds it: an open visit's end (infinity) is none.
public struct StoredVisit: Sendable, Equatable, Codable {
  let venueId: Int64
  let accountId: Int64
  let dependantId: Int64
  let start: Double
  let end: Double?

  public init(_ visit: Visit) {
    venueId = visit.venueId
    accountId = visit.accountId
    dependantId = visit.dependantId
    start = visit.start
    end = visit.isOpen ? nil : visit.end
  }

  func visit(id: Int64) -> Visit {
    Visit(
      id: id, venueId: venueId, accountId: accountId, dependantId: dependantId, start: start,
      end: end ?? .infinity)
  }
}

/// What one node tells the nodes that share its store and is not a write: a venue created or a
/// guest checked in, as the per-hour limits count them.
public enum VenuesNews: Sendable, Equatable, Codable {
  case created(account: Int64)
  /// A guest checked in from `client` (an address's key) at the venue.
  case guestCheckedIn(client: String, venue: Int64)
}

extension Venues {
  /// Applies a change committed to the shared store; `own` when this node wrote it (memory has
  /// it already). One person's visit, one owner's venue, one account's favorites are each
  /// written by one client at a time; the same one written on two nodes at the same moment is
  /// the race this leaves (docs/STORE.md).
  public func apply(followed change: VenueChange, own: Bool) {
    guard !own else { return }
    state.withLock { s in
      switch change {
      case .venue(let venue):
        if s.venues[venue.id] == nil { Self.add(venue, to: &s) }
      case .code(let id, let code?):
        guard var venue = s.venues[id] else { return }
        Self.replaceCode(of: &venue, with: code, in: &s)
      case .code(_, nil): return
      case .dependant(let dependant):
        guard s.dependants[dependant.id] == nil else { return }
        s.dependants[dependant.id] = dependant
        s.dependantsOf[dependant.accountId, default: []].append(dependant.id)
      case .dependantRemoved(let id):
        s.dependants[id]?.removed = true
      case .visit(let id, let stored?):
        let visit = stored.visit(id: id)
        if let held = s.visits[id] {
          if held.isOpen && !visit.isOpen { Self.close(id, at: visit.end, in: &s) }
        } else {
          Self.add(visit, to: &s)
        }
      case .visit(let id, nil):
        Observer.forget(id, in: &s)
      case .favorite(let account, let venue, let addedAt):
        s.favorites[account, default: [:]][venue] = addedAt
        if s.favorites[account]?.isEmpty == true { s.favorites[account] = nil }
      case .guest(let id, let guest?):
        if s.guests[id] == nil { Self.add(guest, to: &s) } else { s.guests[id] = guest }
      case .guest(let id, nil):
        Self.forget(guest: id, in: &s)
      case .notices(let notices):
        for notice in notices
        where !(s.notices[notice.accountId] ?? []).contains(where: { $0.sameWindow(notice) }) {
          s.notices[notice.accountId, default: []].append(notice)
        }
      }
    }
  }

  /// Tells `news` every venue created, from now on.
  public func shareNews(_ news: @escaping @Sendable (VenuesNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  func share(_ news: VenuesNews) {
    newsShare.withLock { $0 }?(news)
  }

  /// Counts another node's news here.
  public func apply(followed news: VenuesNews) {
    switch news {
    case .created(let account): creates.record(["account:\(account)"])
    case .guestCheckedIn(let client, let venue):
      guestsByAddress.record(["address:\(client)"])
      guestsByVenue.record(["venue:\(venue)"])
    }
  }
}
