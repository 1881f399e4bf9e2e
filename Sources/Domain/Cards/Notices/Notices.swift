import Accounts
import DomainSupport
import Durability
import Foundation
import Synchronization

/// What holders and owners hear of cards, published to the server's subscribers once the change
/// is durable. A holder's `wallet:<holderId>` hears when a card in its wallet changes or goes;
/// an owner's `account:<ownerId>` hears of views of its cards and of wallets adding them, each
/// only if the owner turned that event on (`set`; both are off until then: an owner opts in).
/// Knows nothing of RESP.
public final class Notices: Sendable {
  /// What an owner may choose to hear of.
  public enum Event: String, CaseIterable, Sendable {
    case views
    case walletAdds
  }

  public struct Settings: Sendable, Equatable {
    public var views = false
    public var walletAdds = false

    public init(views: Bool = false, walletAdds: Bool = false) {
      self.views = views
      self.walletAdds = walletAdds
    }

    public subscript(event: Event) -> Bool {
      get { event == .views ? views : walletAdds }
      set { if event == .views { views = newValue } else { walletAdds = newValue } }
    }
  }

  let storage: any NoticeStorage
  let cards: Cards
  let notifier: any Notifier
  let settings = Mutex<[Int64: Settings]>([:])

  public init(storage: any NoticeStorage, cards: Cards, notifier: any Notifier) throws {
    self.storage = storage
    self.cards = cards
    self.notifier = notifier
    let stored = try storage.load()
    settings.withLock { $0 = stored }
    cards.accounts.addObserver(Observer(notices: self))
  }

  // MARK: The owner's choices

  public func settings(of account: Int64) -> Settings {
    settings.withLock { $0[account] } ?? Settings()
  }

  /// Turns an event on or off for the account; answers the settings once durable.
  public func set(
    account: Int64, _ event: Event, _ on: Bool, _ done: @escaping Cards.Done<Settings>
  ) {
    guard cards.accounts.account(account) != nil else { return done(.failure(.notFound)) }
    let changed = settings.withLock { all -> Settings in
      all[account, default: Settings()][event] = on
      return all[account]!
    }
    // What memory holds when it applies, so that racing changes leave the latest.
    cards.commit([storage.syncing(account: account) { [self] in settings(of: account) }]) {
      done($0.map { changed })
    }
  }

  // MARK: Notices, as writes that publish once their transaction is durable

  /// The card changed (its fields, its primary flag, or it turned active or inactive): its
  /// holders hear it as their wallets show it.
  func changed(_ card: Card, holders: Set<Int64>) -> any DurableWrite {
    let message = Self.json(["event": "changed", "cardId": card.id, "card": summary(card)])
    return Notice(notifier: notifier, messages: holders.map { ("wallet:\($0)", message) })
  }

  func removed(_ card: Card, holders: Set<Int64>) -> any DurableWrite {
    let message = Self.json(["event": "removed", "cardId": card.id])
    return Notice(notifier: notifier, messages: holders.map { ("wallet:\($0)", message) })
  }

  /// Someone added the card to their wallet: its owner hears it if it chose to.
  func walletAdded(_ card: Card, by account: Int64) -> [any DurableWrite] {
    guard settings(of: card.ownerId).walletAdds else { return [] }
    let message = Self.json(["event": "walletAdd", "cardId": card.id, "accountId": account])
    return [Notice(notifier: notifier, messages: [("account:\(card.ownerId)", message)])]
  }

  /// A view was counted: its owner hears it if it chose to (`viewerId` null for an anonymous
  /// visitor of the card's page).
  func viewed(_ card: Card, by viewer: Int64?) {
    guard settings(of: card.ownerId).views else { return }
    notifier.publish(
      Self.json(["event": "view", "cardId": card.id, "viewerId": viewer ?? NSNull()]),
      to: "account:\(card.ownerId)")
  }

  /// The card as a wallet lists it, in brief: an inactive card shows only its id.
  func summary(_ card: Card) -> [String: Any] {
    guard cards.isActive(card) else { return ["id": card.id, "isActive": false] }
    let f = card.fields
    var object: [String: Any] = ["id": card.id, "isActive": true, "firstName": f.firstName]
    for (key, value) in [
      ("prefix", f.prefix), ("lastName", f.lastName), ("jobTitle", f.jobTitle),
      ("company", f.company), ("imageUrl", f.imageUrl), ("city", f.address?.city),
      ("url", cards.url(of: card)),
    ] {
      if let value { object[key] = value }
    }
    return object
  }

  static func json(_ object: [String: Any]) -> String {
    let data = try? JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// Forgets a deleted account's settings.
  private struct Observer: AccountObserver {
    let notices: Notices

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      _ = notices.settings.withLock { $0.removeValue(forKey: id) }
      return [notices.storage.deleting(account: id)]
    }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}

/// Messages published once the transaction that carries this write is durable: a change never
/// announced is one a crash could still undo. Writes nothing itself.
struct Notice: DurableWrite {
  struct Message: Sendable {
    let channel: String
    let text: String
  }

  let notifier: any Notifier
  let messages: [Message]

  init(notifier: any Notifier, messages: [(String, String)]) {
    self.notifier = notifier
    self.messages = messages.map { Message(channel: $0.0, text: $0.1) }
  }

  func committed() {
    for message in messages { notifier.publish(message.text, to: message.channel) }
  }
}
