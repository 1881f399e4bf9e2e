import Durability

/// What the venues need from a store: everything read back at start (`StoredVenues`), and the
/// writes that keep it, made durable in the group commit with the rest of their command
/// (`commit`). An account's rows go with the account's own (the store cascades its deletion).
/// The embedded store's is `SQLiteDomainStorage.SQLiteVenues`; a store many nodes share hands
/// out ids in blocks (`ids`) and carries each write's `VenueChange` to every node
/// (`Venues.apply(followed:own:)`).
public protocol VenueStorage: WriteCommitter {
  func load() throws -> StoredVenues
  func inserting(_ venue: Venue) -> any DurableWrite
  /// Makes the venue's stored code what `current` answers as the write applies (nothing if
  /// the venue is gone), so that racing rotations leave the latest.
  func syncingCode(of venue: Int64, current: @escaping @Sendable () -> String?)
    -> any DurableWrite
  func inserting(_ dependant: Dependant) -> any DurableWrite
  func removingDependant(_ id: Int64) -> any DurableWrite
  /// Makes the stored visit what `current` answers as the write applies (none: deleted), so
  /// that racing changes of one visit leave the latest whatever order they commit in.
  func syncingVisit(_ id: Int64, current: @escaping @Sendable () -> Visit?) -> any DurableWrite
  /// Makes the stored favorite what `current` answers as the write applies: when it was added,
  /// or nil for none.
  func syncingFavorite(
    account: Int64, venue: Int64, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite
  /// Notices of exposure; one already stored is kept as it was.
  func inserting(_ notices: [ExposureNotice]) -> any DurableWrite
  /// Makes the stored guest visit what `current` answers as the write applies (none: gone).
  func syncingGuest(_ id: Int64, current: @escaping @Sendable () -> GuestVisit?)
    -> any DurableWrite
  /// Where new venues', dependants' and visits' ids come from when nodes share the store (nil:
  /// one after the highest, counted in memory). Guest visits take theirs from the visits'.
  var ids: VenueIDs? { get }
}

extension VenueStorage {
  public var ids: VenueIDs? { nil }
}

/// The blocks of ids of a store many nodes share.
public struct VenueIDs: Sendable {
  public let venues: any IDBlocks
  public let dependants: any IDBlocks
  public let visits: any IDBlocks

  public init(venues: any IDBlocks, dependants: any IDBlocks, visits: any IDBlocks) {
    self.venues = venues
    self.dependants = dependants
    self.visits = visits
  }
}

/// Everything the venues' store holds, as the writes left it.
public struct StoredVenues: Sendable {
  public var venues: [Venue] = []
  /// In the order they were added.
  public var dependants: [Dependant] = []
  /// By start, then id.
  public var visits: [Visit] = []
  public var favorites: [(account: Int64, venue: Int64, addedAt: Double)] = []
  /// By time reported.
  public var notices: [ExposureNotice] = []
  /// By start, then id.
  public var guests: [GuestVisit] = []
  /// The id after the highest each table has ever given (a deleted row's is never given again).
  public var nextVenue: Int64 = 1
  public var nextDependant: Int64 = 1
  public var nextVisit: Int64 = 1
  public var nextGuest: Int64 = 1

  public init() {}
}
