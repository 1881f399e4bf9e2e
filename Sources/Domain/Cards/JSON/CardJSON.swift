import Foundation

/// A card as every reply shows it (CARD.GET, CARD.MINE, WALLET.*, the HTTP API): what the owner
/// set, and what the server set. An inactive card has no code or URL.
public enum CardJSON {
  public static func object(_ card: Card, cards: Cards) -> [String: Any] {
    var object = card.fields.jsonObject()
    let active = cards.isActive(card)
    object["id"] = card.id
    object["ownerId"] = card.ownerId
    object["slug"] = card.slug
    object["isPrimary"] = card.isPrimary
    object["isActive"] = active
    object["createdAt"] = timestamp(card.createdAt)
    object["updatedAt"] = timestamp(card.updatedAt)
    if active {
      object["code"] = card.code
      object["url"] = cards.url(of: card)
    }
    return object
  }

  /// `object` as JSON text, written directly (`JSONText`).
  public static func text(_ card: Card, cards: Cards) -> JSONText {
    var object = card.fields.jsonText()
    let active = cards.isActive(card)
    object.add("id", card.id)
    object.add("ownerId", card.ownerId)
    object.add("slug", card.slug)
    object.add("isPrimary", card.isPrimary)
    object.add("isActive", active)
    object.add("createdAt", timestamp(card.createdAt))
    object.add("updatedAt", timestamp(card.updatedAt))
    if active {
      object.add("code", card.code)
      object.add("url", cards.url(of: card))
    }
    return object
  }

  /// A wallet's card as its holder sees it, and when it was added; an inactive card shows only
  /// its id.
  public static func object(_ entry: WalletEntry, cards: Cards) -> [String: Any] {
    var object: [String: Any] =
      entry.isActive
      ? Self.object(entry.card, cards: cards) : ["id": entry.card.id, "isActive": false]
    object["addedAt"] = timestamp(entry.addedAt)
    return object
  }

  /// ISO 8601 to the second, as `ISO8601DateFormatter` writes it, without making one (130 µs
  /// each, against 4 µs: most of a WALLET.SEARCH's time).
  public static func timestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle())
  }

  /// A JSON object or array (of what `JSONSerialization` takes) as every reply writes it: keys
  /// sorted, slashes unescaped, so a reply reads the same every time and over either protocol.
  public static func data(_ object: Any) -> Data {
    (try? JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      ?? Data("{}".utf8)
  }
}
