import Foundation

/// What one node tells the nodes that share its store and is not a write: a pin added or an
/// open, as the per-account limits and the opener's travel count them. Each node counts it as
/// its own (`Pins.apply(followed:)`), so that adds, opens and the travel check hold across
/// nodes as on one: a client cannot claim a pin in Paris on one node and one in Tokyo on
/// another a second later. Not durable, as the counts are not.
public enum PinsNews: Sendable, Equatable, Codable {
  case added(account: Int64)
  /// Where the account stood to open a pin, and when (seconds since 1970).
  case opened(account: Int64, longitude: Double, latitude: Double, at: Double)
}

extension Pins {
  /// Tells `news` every add and open counted, from now on: a store many nodes share carries
  /// them to the other nodes.
  public func shareNews(_ news: @escaping @Sendable (PinsNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  func share(_ news: PinsNews) {
    newsShare.withLock { $0 }?(news)
  }

  /// Counts another node's news here.
  public func apply(followed news: PinsNews) {
    switch news {
    case .added(let account):
      adds.record(["account:\(account)"])
    case .opened(let account, let longitude, let latitude, let at):
      opens.record(["account:\(account)"], now: at)
      travel.record(account, longitude: longitude, latitude: latitude, at: at)
    }
  }
}
