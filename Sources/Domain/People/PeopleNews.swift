import Foundation

/// What one node tells the nodes that share its store and is not a write: a presence set or
/// cleared (its cell, never the exact point), or a search one of the limits counted. Each node
/// applies it as its own (`People.apply(followed:)`), so that PEOPLE.NEARBY on any node finds
/// a presence set on another, and searches spread over nodes meet the same limits (the
/// trilateration bounds) as on one. Not durable, as presences and counts are not.
public enum PeopleNews: Sendable, Equatable, Codable {
  /// The presence as set: its cell's centre, whether findable, when it expires (seconds since
  /// 1970).
  case presence(
    account: Int64, longitude: Double, latitude: Double, findable: Bool, expires: Double)
  case cleared(account: Int64)
  /// A search the per-minute limit counted.
  case searched(account: Int64)
  /// A cell searched from, counted on the account's and the address's keys.
  case searchCell(String, keys: [String], byAddress: Bool)
  /// A node listening anew: each node answers with the live presences set through it.
  case hello
  /// Several news in one message (a node's answer to `hello`).
  case batch([PeopleNews])
}

extension People {
  /// Tells `news` every presence set or cleared and every search counted, from now on: a store
  /// many nodes share carries them to the other nodes.
  public func shareNews(_ news: @escaping @Sendable (PeopleNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  func share(_ news: PeopleNews) {
    newsShare.withLock { $0 }?(news)
  }

  /// Applies another node's news here.
  public func apply(followed news: PeopleNews) {
    let now = clock()
    switch news {
    case .presence(let account, let longitude, let latitude, let findable, let expires):
      guard expires > now else { return }
      _ = presences.set(
        account,
        Presences.Presence(
          longitude: longitude, latitude: latitude, findable: findable, expires: expires,
          setHere: false),
        now: now)
    case .cleared(let account):
      presences.clear(account, now: now)
    case .searched(let account):
      searches.record(["\(account)"], now: now)
    case .searchCell(let cell, let keys, let byAddress):
      (byAddress ? searchCellsByAddress : searchCells).record(cell, on: keys, now: now)
    case .hello:
      let told = presences.setHere(now: now).map { account, presence in
        PeopleNews.presence(
          account: account, longitude: presence.longitude, latitude: presence.latitude,
          findable: presence.findable, expires: presence.expires)
      }
      // 30 to a message: well under what one message carries (`PostgresPubSub.maximumBytes`).
      for start in stride(from: 0, to: told.count, by: 30) {
        share(.batch(Array(told[start..<min(start + 30, told.count)])))
      }
    case .batch(let news):
      // Only presences come batched; nothing in a batch asks for more.
      for item in news {
        if case .presence = item { apply(followed: item) }
      }
    }
  }
}
