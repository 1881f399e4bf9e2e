import Accounts
import DomainSupport
import Durability
import Foundation
import Geocoding
import RateLimits
import Synchronization

/// Venues and check-ins (CovidPass): venues with rotating check-in codes, visits of accounts
/// and of the dependants they check in with them, favorites, and exposure (whose visits
/// overlapped whose, and notices to visitors that never say who). Held in memory (loaded from
/// the store at start), written through the store's group commit, answered once durable.
/// Knows nothing of RESP.
public final class Venues: Sendable {
  public struct Configuration: Sendable {
    /// CHECKIN with a position farther than this from the venue, in metres, is refused.
    public var checkInDistance = 200.0
    /// Where VENUE.CREATE with an address and no coordinates looks it up.
    public var geocoder: (any Geocoder)?
    /// When the account's positive test result on file was taken (nil: none on file); the
    /// private documents answer it, unless this is set.
    public var positiveTest: (@Sendable (Int64) -> Date?)?
    /// EXPOSURE.REPORT looks at the reporter's visits from this many days before its test.
    public var reportDays = 14.0
    /// The time: tests set it to replay histories.
    public var clock: @Sendable () -> Date = { Date() }
    /// Venues one account may create in an hour (`--venues-per-hour`, 0: no limit).
    public var createsPerHour = 30
    /// Where a venue's check-in page is: its QR code holds `<publicURL>/v/<code>`.
    public var publicURL = "http://127.0.0.1:8080"
    /// How long a guest's stay counts (a guest cannot check out), at most `longVisit`.
    public var guestStay = 7_200.0
    /// Guest check-ins one client address may make in an hour, and one venue may take.
    public var guestsPerAddress = 10
    public var guestsPerVenue = 600
    /// Exposure mails one guest email may get in a day: what someone checking in strangers'
    /// addresses could make the server send them.
    public var guestMailsPerDay = 3

    public init() {}
  }

  public static let maxDependants = 20
  public static let maxNameLength = 200
  /// Visits longer than this (and open ones) are kept aside at their venue, so that an
  /// exposure search reads only the day before each of the subject's visits.
  static let longVisit = 86_400.0

  struct Person: Hashable {
    let account: Int64
    let dependant: Int64
  }

  /// A venue's visits: by start, and those open or longer than `longVisit`.
  struct AtVenue {
    var ids: [Int64] = []
    var long: Set<Int64> = []
  }

  struct State {
    var venues: [Int64: Venue] = [:]
    var byCode: [String: Int64] = [:]
    /// Codes a rotation replaced (one a venue): their page says the code changed.
    var byPreviousCode: [String: Int64] = [:]
    var byOwner: [Int64: [Int64]] = [:]
    var nextVenue: Int64 = 1
    var dependants: [Int64: Dependant] = [:]
    var dependantsOf: [Int64: [Int64]] = [:]
    var nextDependant: Int64 = 1
    var visits = VisitTable()
    var atVenue: [Int64: AtVenue] = [:]
    /// Each account's visits and its dependants', by start.
    var ofAccount: [Int64: [Int64]] = [:]
    var open: [Person: Int64] = [:]
    /// Venue to when it was added.
    var favorites: [Int64: [Int64: Double]] = [:]
    var notices: [Int64: [ExposureNotice]] = [:]
    var guests: [Int64: GuestVisit] = [:]
    /// Each venue's guests, by start.
    var guestsAt: [Int64: [Int64]] = [:]
    var nextGuest: Int64 = 1
  }

  let storage: any VenueStorage
  let accounts: Accounts
  let notifier: any Notifier
  public let configuration: Configuration
  let creates: KeyedLimit
  let guestsByAddress: KeyedLimit
  let guestsByVenue: KeyedLimit
  let guestMails: KeyedLimit
  let state = Mutex(State())
  let newsShare = Mutex<(@Sendable (VenuesNews) -> Void)?>(nil)
  public typealias Done<T> = @Sendable (Result<T, VenueError>) -> Void

  public init(
    storage: any VenueStorage, accounts: Accounts, notifier: any Notifier,
    configuration: Configuration = .init()
  ) throws {
    self.storage = storage
    self.accounts = accounts
    self.notifier = notifier
    self.configuration = configuration
    precondition(configuration.guestStay > 0 && configuration.guestStay <= Self.longVisit)
    creates = KeyedLimit(configuration.createsPerHour, per: 3_600)
    guestsByAddress = KeyedLimit(configuration.guestsPerAddress, per: 3_600)
    guestsByVenue = KeyedLimit(configuration.guestsPerVenue, per: 3_600)
    guestMails = KeyedLimit(configuration.guestMailsPerDay, per: 86_400)
    let stored = try storage.load()
    state.withLock { Self.load(stored, into: &$0) }
    accounts.addObserver(Observer(venues: self))
  }

  var now: Double { (configuration.clock().timeIntervalSince1970 * 1000).rounded() / 1000 }

  // MARK: Helpers shared by the parts

  /// Commits `writes`; a failure the store says wrote nothing is `tryAgain` (retryable).
  func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    storage.commit(writes) { result in
      done(
        result.mapError { error in
          guard let failure = error as? StoreFailure, failure.nothingWritten else {
            return .notPersisted("\(error)")
          }
          return .tryAgain("write not persisted, nothing written: \(error)")
        })
    }
  }

  /// A new id from `blocks` when the store gives them, else `next` (then counted on).
  static func newId(_ blocks: (any IDBlocks)?, _ next: inout Int64) -> Int64? {
    guard let blocks else {
      defer { next += 1 }
      return next
    }
    return blocks.next()
  }

  static let waitingForIds = VenueError.tryAgain("this node is waiting for new ids")

  /// Answers `value` once `writes` are durable.
  func commit<T: Sendable>(_ writes: [any DurableWrite], answer value: T, _ done: @escaping Done<T>)
  {
    commit(writes) { done($0.map { value }) }
  }

  static func validName(_ text: String, field: String) -> Result<String, VenueError> {
    let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else { return .failure(.invalid(field: field, reason: "empty")) }
    guard name.count <= maxNameLength, !name.contains(where: \.isNewline) else {
      return .failure(
        .invalid(field: field, reason: "one line of at most \(maxNameLength) characters"))
    }
    return .success(name)
  }

  /// A random code of 16 characters without look-alikes (about 79 bits): what a QR code holds,
  /// not to be guessed.
  static func code() -> String {
    let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
    var rng = SystemRandomNumberGenerator()
    return String((0..<16).map { _ in alphabet.randomElement(using: &rng)! })
  }
}

/// Messages published once the transaction that carries this write is durable.
struct Publish: DurableWrite {
  let notifier: any Notifier
  let messages: [(channel: String, text: String)]

  func committed() {
    for message in messages { notifier.publish(message.text, to: message.channel) }
  }
}

/// Visits by id, in an array indexed by id (ids are handed out in sequence from 1): a million
/// visits cost their own size. A deleted visit stays as a slot whose account is 0.
struct VisitTable {
  private(set) var slots: [Visit] = []

  subscript(id: Int64) -> Visit? {
    id > 0 && id <= slots.count && slots[Int(id - 1)].accountId != 0 ? slots[Int(id - 1)] : nil
  }

  /// The visit, which must be there (ids taken from the indexes).
  func at(_ id: Int64) -> Visit { slots[Int(id - 1)] }

  mutating func set(_ visit: Visit) {
    let i = Int(visit.id - 1)
    while slots.count <= i {
      slots.append(
        Visit(
          id: Int64(slots.count + 1), venueId: 0, accountId: 0, dependantId: 0, start: 0, end: 0))
    }
    slots[i] = visit
  }

  mutating func close(_ id: Int64, at end: Double) { slots[Int(id - 1)].end = end }
  mutating func delete(_ id: Int64) { slots[Int(id - 1)].accountId = 0 }
}
