import Foundation

/// One write of `WalletStorage`, as another node applies it to the wallets it holds
/// (`Wallets.apply(followed:)`): a store many nodes share carries it to them.
public enum WalletChange: Sendable, Equatable, Codable {
  /// The holder holds the card since `addedMicros`, or (nil) no longer holds it.
  case entry(holder: Int64, card: Int64, addedMicros: Int64?)
  case deletedWallet(holder: Int64)
}

extension Wallets {
  /// Applies a change another node made (and committed), in the feed's order: after the
  /// cards' of the same commit, so that a card added is held here already.
  public func apply(followed change: WalletChange) {
    state.withLock { s in
      switch change {
      case .entry(let holder, let card, let micros?):
        guard let held = cards.held(card) else { return }
        if s.wallets[holder]?.added[card] != nil { forget(holder, card, in: &s) }
        s.hold(holder, card, since: micros, WalletText(held))
      case .entry(let holder, let card, nil):
        forget(holder, card, in: &s)
      case .deletedWallet(let holder):
        s.removeWallet(of: holder)
      }
    }
  }
}
