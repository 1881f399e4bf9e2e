import Accounts
import Cards
import Durability

extension Assets {
  /// The card fields that may name an asset, and the kinds each takes.
  static let fields:
    [(name: String, path: KeyPath<CardFields, String?> & Sendable, kinds: Set<AssetKind>)] = [
      ("imageUrl", \.imageUrl, [.image, .logo]),
      ("logoUrl", \.logoUrl, [.image, .logo]),
      ("bannerUrl", \.bannerUrl, [.image, .logo]),
      ("cvUrl", \.cvUrl, [.cv]),
    ]

  /// 32 lowercase hex digits, as `MediaFiles` names files.
  static func isAssetId(_ id: String) -> Bool {
    id.utf8.count == 32
      && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// Records which of `owner`'s assets card `card` names now; or refuses a URL into this
  /// server's `/a/` that is not exactly `<publicURL>/a/<32 hex>` (nothing after it: a query, a
  /// fragment or a trailing slash would pass another's asset off through a different text), or
  /// that names no asset, another account's, or one of a kind the field does not take. Other
  /// URLs are not assets and are left to the cards' rules.
  func claim(card: Int64, owner: Int64, fields: CardFields) -> CardFieldError? {
    let prefix = url("")
    return state.withLock { s in
      var named: Set<String> = []
      for field in Self.fields {
        guard let value = fields[keyPath: field.path], assetPaths.contains(value) else { continue }
        let id = String(value.dropFirst(prefix.count))
        guard value.hasPrefix(prefix), Self.isAssetId(id) else {
          return CardFieldError(
            field: field.name, reason: "an asset's URL is \(prefix)<32 hex digits>, nothing more")
        }
        guard let asset = s.assets[id] else {
          return CardFieldError(field: field.name, reason: "no such asset")
        }
        guard asset.ownerId == owner else {
          return CardFieldError(field: field.name, reason: "the asset is not yours")
        }
        guard field.kinds.contains(asset.kind) else {
          return CardFieldError(
            field: field.name,
            reason: "the asset's kind is \(asset.kind.rawValue); this field takes "
              + field.kinds.map(\.rawValue).sorted().joined(separator: " or "))
        }
        named.insert(id)
      }
      let before = s.names[card] ?? []
      for id in before.subtracting(named) {
        s.namedBy[id]?.remove(card)
        if s.namedBy[id]?.isEmpty == true { s.namedBy[id] = nil }
      }
      for id in named.subtracting(before) { s.namedBy[id, default: []].insert(card) }
      s.names[card] = named.isEmpty ? nil : named
      return nil
    }
  }

  /// The card is gone: the assets only it named go with it (rows in its transaction, files
  /// once that is durable).
  func cardDeleted(_ card: Int64) -> [any DurableWrite] {
    let gone = state.withLock { s -> [Asset] in
      var gone: [Asset] = []
      for id in s.names.removeValue(forKey: card) ?? [] {
        s.namedBy[id]?.remove(card)
        if s.namedBy[id]?.isEmpty == true, let asset = Self.forget(id, &s) { gone.append(asset) }
      }
      return gone
    }
    return gone.isEmpty ? [] : deletion(gone)
  }

  /// The account is gone: all its assets go.
  func accountDeleted(_ owner: Int64) -> [any DurableWrite] {
    let gone = state.withLock { s in
      (s.byOwner[owner] ?? []).compactMap { Self.forget($0, &s) }
    }
    return gone.isEmpty ? [] : deletion(gone)
  }

  struct CardsGuard: CardFieldsGuard {
    let assets: Assets
    func claim(card: Int64, owner: Int64, fields: CardFields) -> CardFieldError? {
      assets.claim(card: card, owner: owner, fields: fields)
    }
  }

  struct CardsObserver: CardObserver {
    let assets: Assets
    /// Records what the card names: a card another node wrote is told here, unchecked there.
    func cardChanged(_ card: Card) -> [any DurableWrite] {
      _ = assets.claim(card: card.id, owner: card.ownerId, fields: card.fields)
      return []
    }
    func cardDeleted(_ card: Card) -> [any DurableWrite] { assets.cardDeleted(card.id) }
  }

  struct AccountsObserver: AccountObserver {
    let assets: Assets
    func accountDeleted(_ id: Int64) -> [any DurableWrite] { assets.accountDeleted(id) }
    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}
