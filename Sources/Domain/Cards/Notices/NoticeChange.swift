/// One write of `NoticeStorage`, as another node applies it (`Notices.apply(followed:)`).
public enum NoticeChange: Sendable, Equatable, Codable {
  case settings(account: Int64, views: Bool, walletAdds: Bool)
  case deleted(account: Int64)
}

extension Notices {
  /// Applies a change another node made (and committed).
  public func apply(followed change: NoticeChange) {
    settings.withLock { all in
      switch change {
      case .settings(let account, let views, let walletAdds):
        all[account] = Settings(views: views, walletAdds: walletAdds)
      case .deleted(let account): all[account] = nil
      }
    }
  }
}
