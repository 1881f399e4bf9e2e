/// What one node tells the nodes that share its store and is not a write: a look-up by share
/// code the hourly limits counted, so that look-ups spread over nodes (harvesting codes) meet
/// the same limits as on one. Not durable, as the counts are not.
public enum CardsNews: Sendable, Equatable, Codable {
  /// For the account (none for a visitor signed in nowhere) and the address.
  case codeRead(viewer: Int64?, address: String)
}

extension Cards {
  /// Tells `news` every look-up by code counted, from now on.
  public func shareNews(_ news: @escaping @Sendable (CardsNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  /// Counts another node's news here.
  public func apply(followed news: CardsNews) {
    switch news {
    case .codeRead(let viewer, let address):
      if let viewer { codeReads.record(["account:\(viewer)"]) }
      codeReadsByAddress.record(["address:" + address])
    }
  }
}
