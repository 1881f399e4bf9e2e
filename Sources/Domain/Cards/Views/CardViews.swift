import Accounts
import Crypto
import Durability
import Foundation
import Synchronization

/// Views of cards: an account that opens someone else's card (by id, code or share URL) counts
/// one view of it per UTC day, however often it opens it; the owner's own opens do not count.
/// An anonymous visitor of the card's web page counts likewise, told apart by a daily hash.
/// Each counted view is a row in the store, written before the open is answered; the owner
/// reads them per day (`stats`). Knows nothing of RESP.
public final class CardViews: Sendable {
  /// The (card, viewer) pairs already counted today, so that opening a card again writes
  /// nothing. Bounded: past `rememberedLimit` pairs it starts over, and a pair forgotten costs
  /// one write the store's key turns into nothing.
  private struct Today {
    var day = -1
    var counted: Set<Pair> = []
    var visited: Set<Visit> = []
  }

  private struct Pair: Hashable {
    let card: Int64
    let viewer: Int64
  }

  private struct Visit: Hashable {
    let card: Int64
    let visitor: Data
  }

  /// What stores a counted view and calls back once it is durable.
  public typealias Record = @Sendable (@escaping Cards.Done<Void>) -> Void

  static let rememberedLimit = 100_000

  let storage: any CardViewStorage
  let cards: Cards
  let notices: Notices
  private let today = Mutex(Today())
  /// The salt of today's visitor hashes: random, never stored, replaced each UTC day.
  private let salt = Mutex((day: -1, bytes: [UInt8]()))

  public init(storage: any CardViewStorage, cards: Cards, notices: Notices) {
    self.storage = storage
    self.cards = cards
    self.notices = notices
    let observer = Observer(storage: storage)
    cards.addObserver(observer)
    cards.accounts.addObserver(observer)
  }

  /// Who opened a card: a signed-in account, or an anonymous visitor of its page, told apart by
  /// what its request says of its client (its address and user agent).
  public enum Viewer: Sendable {
    case account(Int64)
    case visitor(client: String)
  }

  /// The card was opened by `viewer`: every open (CARD.GET, CARD.OPEN, the card page, the API)
  /// counts through here. When it counts as a new view (once per card, viewer and UTC day;
  /// never the owner's own), returns the write that stores it (and tells the owner, if it chose
  /// to hear of views), which calls back once it is durable; nil when there is nothing to store,
  /// so the open can be answered at once.
  ///
  /// Only a hash of a visitor's client is kept, under a salt that is random, held in memory only
  /// and replaced each UTC day: the store holds no address, and one day's visitors cannot be
  /// linked to another day's. A restart draws a new salt, so a visitor may count once more on
  /// that day.
  public func opened(_ card: Card, by viewer: Viewer) -> Record? {
    let day = UTCDay.today
    switch viewer {
    case .account(let account):
      guard card.ownerId != account else { return nil }
      let pair = Pair(card: card.id, viewer: account)
      guard remember(day, { $0.counted.insert(pair).inserted }) else { return nil }
      let write = storage.recording(card: card.id, viewer: account, day: day) {
        [notices] new in if new { notices.viewed(card, by: account) }
      }
      return record(write) { $0.counted.remove(pair) }
    case .visitor(let client):
      let visit = Visit(card: card.id, visitor: visitor(client, day))
      guard remember(day, { $0.visited.insert(visit).inserted }) else { return nil }
      let write = storage.recording(card: card.id, visitor: visit.visitor, day: day) {
        [notices] new in if new { notices.viewed(card, by: nil) }
      }
      return record(write) { $0.visited.remove(visit) }
    }
  }

  /// `opened(_:by:)`, waited for: returns once the view is stored, or at once when it does not
  /// count. A view that could not be stored is forgotten, and the open goes on: the view is its
  /// side effect.
  public func counted(_ card: Card, by viewer: Viewer) async {
    guard let record = opened(card, by: viewer) else { return }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      record { _ in done.resume() }
    }
  }

  /// Notes a view in today's memory; false if it was already counted today.
  private func remember(_ day: Int, _ insert: (inout Today) -> Bool) -> Bool {
    today.withLock { t in
      if t.day != day || t.counted.count + t.visited.count >= Self.rememberedLimit {
        t = Today(day: day)
      }
      return insert(&t)
    }
  }

  /// Stores a view; one that could not be stored is forgotten, so the next open tries again.
  private func record(_ write: any DurableWrite, forget: @escaping @Sendable (inout Today) -> Void)
    -> Record
  {
    { [self] done in
      cards.commit([write]) { [self] result in
        if case .failure = result { today.withLock { forget(&$0) } }
        done(result)
      }
    }
  }

  /// A visitor's 16-byte hash under the day's salt.
  private func visitor(_ client: String, _ day: Int) -> Data {
    let bytes = salt.withLock { salt -> [UInt8] in
      if salt.day != day {
        var random = SystemRandomNumberGenerator()
        salt = (day, (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
      }
      return salt.bytes
    }
    return Data(SHA256.hash(data: bytes + Array(client.utf8)).prefix(16))
  }

  /// The owner's card's views per day from `from` to `to` (UTC days), the days without views
  /// left out.
  public func stats(
    owner: Int64, id: Int64, from: Int, to: Int, _ done: @escaping Cards.Done<CardStats>
  ) {
    guard let card = cards.held(id) else { return done(.failure(.notFound)) }
    guard card.ownerId == owner else { return done(.failure(.noPermission)) }
    guard from <= to else { return done(.failure(.badQuery("FROM is after TO"))) }
    storage.views(of: id, from: from, to: to) { result in
      done(
        result.map { CardStats(cardId: id, from: from, to: to, days: $0) }
          .mapError { .notPersisted("\($0)") })
    }
  }

  /// Deleted cards and accounts take their views with them.
  private struct Observer: CardObserver, AccountObserver {
    let storage: any CardViewStorage

    func cardChanged(_ card: Card) -> [any DurableWrite] { [] }

    func cardDeleted(_ card: Card) -> [any DurableWrite] { [storage.deletingViews(of: card.id)] }

    func accountDeleted(_ id: Int64) -> [any DurableWrite] { [storage.deletingViews(by: id)] }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}

/// A card's views per day.
public struct CardStats: Sendable {
  public let cardId: Int64
  public let from: Int
  public let to: Int
  public let days: [(day: Int, views: Int)]
  public var total: Int { days.reduce(0) { $0 + $1.views } }
}

/// Days as views count them: whole days since 1970-01-01, UTC, written `yyyy-mm-dd`.
public enum UTCDay {
  public static var today: Int { Int((Date().timeIntervalSince1970 / 86_400).rounded(.down)) }

  /// A strict `yyyy-mm-dd` of a real date, or nil.
  public static func parse(_ text: String) -> Int? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2,
      parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
    else { return nil }
    var components = DateComponents()
    (components.year, components.month, components.day) = (year, month, day)
    // A day past the month's end (2026-02-30) would roll over: refused.
    guard let date = calendar.date(from: components),
      calendar.dateComponents([.year, .month, .day], from: date).day == day
    else { return nil }
    return Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
  }

  public static func text(_ day: Int) -> String {
    let date = Date(timeIntervalSince1970: Double(day) * 86_400)
    let c = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
  }

  private static let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()
}
