import Durability

/// What the pins need from a store: the pins, their photos and votes read back at start, and
/// the writes that keep them, made durable in the group commit with the rest of their command
/// (`commit`). The embedded store's is `SQLiteDomainStorage.SQLitePins`; a store many nodes
/// share hands out pin ids in blocks (`pinIDs`) and carries each write's `PinChange` to every
/// node (`Pins.apply(followed:own:)`).
public protocol PinStorage: WriteCommitter {
  /// Every pin with its photo and without its votes, every vote, and the id after the highest
  /// ever given (a deleted pin's id, which is also its index id, is never given again).
  func load() throws -> (pins: [Pin], votes: [PinVote], nextId: Int64)
  func inserting(_ pin: Pin) -> any DurableWrite
  /// The pin and its votes.
  func deleting(_ id: Int64) -> any DurableWrite
  /// The account's vote on the pin: +1, -1, or 0 for none.
  func voting(_ vote: Int8, by account: Int64, on pin: Int64) -> any DurableWrite
  func settingPhoto(_ photo: PinPhoto, of pin: Int64) -> any DurableWrite
  /// The account's pins and its votes, when the account goes: in its deletion's transaction.
  func deletingAll(of account: Int64) -> any DurableWrite
  /// Where new pins' ids come from when nodes share the store (nil: one after the highest,
  /// counted in memory).
  var pinIDs: (any IDBlocks)? { get }
}

extension PinStorage {
  public var pinIDs: (any IDBlocks)? { nil }
}

/// One account's vote on one pin.
public struct PinVote: Sendable, Equatable {
  public let pin: Int64
  public let account: Int64
  /// +1 or -1.
  public let vote: Int8

  public init(pin: Int64, account: Int64, vote: Int8) {
    self.pin = pin
    self.account = account
    self.vote = vote
  }
}
