/// One upload write as every node applies it, in the order the shared store committed them
/// (`Assets.apply(followed:own:)`).
public enum AssetChange: Sendable, Equatable, Codable {
  case added(Asset)
  case deleted([String])
}

/// What one node tells the nodes that share its store and is not a write: an upload counted by
/// the per-hour limit, so that uploads spread over nodes meet one limit.
public enum AssetsNews: Sendable, Equatable, Codable {
  case uploaded(account: Int64)
}

extension Assets {
  /// Applies a change committed to the shared store; `own` when this node wrote it (memory has
  /// it already).
  public func apply(followed change: AssetChange, own: Bool) {
    guard !own else { return }
    state.withLock { s in
      switch change {
      case .added(let asset):
        s.assets[asset.id] = asset
        s.byOwner[asset.ownerId, default: []].insert(asset.id)
      case .deleted(let ids):
        for id in ids { _ = Self.forget(id, &s) }
      }
    }
  }

  /// Tells `news` every upload counted, from now on.
  public func shareNews(_ news: @escaping @Sendable (AssetsNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  func share(_ news: AssetsNews) {
    newsShare.withLock { $0 }?(news)
  }

  /// Counts another node's news here.
  public func apply(followed news: AssetsNews) {
    switch news {
    case .uploaded(let account): uploads.record(["account:\(account)"])
    }
  }
}
