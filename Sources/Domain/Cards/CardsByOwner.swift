import DomainSupport

/// Each owner's card ids, in the order made. Most owners have one card (an import gives each
/// row its own owner), so one id is held in place and only more take an array: a dictionary
/// of arrays cost an allocation and two buckets of 2^21 an owner at a million owners.
struct CardsByOwner {
  private enum Ids {
    case one(Int64)
    case many([Int64])
  }

  private var owners = IdTable<Ids>()
  /// Cards held, of every owner.
  private(set) var total = 0

  subscript(owner: Int64) -> [Int64] {
    switch owners[owner] {
    case nil: []
    case .one(let id): [id]
    case .many(let ids): ids
    }
  }

  mutating func add(_ id: Int64, to owner: Int64) {
    // Taken out first, so the array is appended to in place, not copied (an owner may have a
    // thousand cards).
    let held = owners[owner]
    owners[owner] = nil
    switch consume held {
    case nil: owners[owner] = .one(id)
    case .one(let first): owners[owner] = .many([first, id])
    case .many(var ids):
      ids.append(id)
      owners[owner] = .many(ids)
    }
    total += 1
  }

  mutating func remove(_ id: Int64, from owner: Int64) {
    var ids = self[owner]
    guard let at = ids.firstIndex(of: id) else { return }
    ids.remove(at: at)
    owners[owner] = ids.isEmpty ? nil : ids.count == 1 ? .one(ids[0]) : .many(ids)
    total -= 1
  }
}
