import Cards
import Foundation
import NIOCore
import RESP

/// A card as its replies show it: what the owner set, and what the server set. An inactive
/// card has no code or URL.
enum CardJSON {
  static func object(_ card: Card, cards: Cards) -> [String: Any] {
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

  /// ISO 8601 to the second, as `ISO8601DateFormatter` writes it, without making one (130 µs
  /// each, against 4 µs: most of a WALLET.SEARCH's time).
  static func timestamp(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

  /// What a map hit shows: enough for a pin and its popup.
  static func summary(_ hit: CardHit) -> [String: Any] {
    let f = hit.card.fields
    var object: [String: Any] = ["id": hit.card.id, "firstName": f.firstName]
    for (key, value) in [
      ("prefix", f.prefix), ("lastName", f.lastName), ("jobTitle", f.jobTitle),
      ("company", f.company), ("imageUrl", f.imageUrl), ("city", f.address?.city),
      ("url", hit.url),
    ] {
      if let value { object[key] = value }
    }
    return object
  }

  /// `summary` as JSON text (sorted keys, as `bulk` writes them), written directly: a map search
  /// answers ten of these, and JSONSerialization of a dictionary cost more than the search.
  static func summaryText(_ hit: CardHit) -> String {
    let f = hit.card.fields
    var out = "{"
    func add(_ key: String, _ value: String?) {
      guard let value else { return }
      if out.utf8.count > 1 { out += "," }
      out += "\"\(key)\":"
      appendQuoted(value, to: &out)
    }
    add("city", f.address?.city)
    add("company", f.company)
    add("firstName", f.firstName)
    out += ",\"id\":\(hit.card.id)"
    add("imageUrl", f.imageUrl)
    add("jobTitle", f.jobTitle)
    add("lastName", f.lastName)
    add("prefix", f.prefix)
    add("url", hit.url)
    return out + "}"
  }

  /// A JSON string: quotes, backslashes and control characters escaped, the rest as is.
  static func appendQuoted(_ text: String, to out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }

  static func reply(_ card: Card, cards: Cards) -> RESPValue { bulk(object(card, cards: cards)) }

  static func bulk(_ object: Any) -> RESPValue {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      ?? Data("{}".utf8)
    return .bulkString(ByteBuffer(bytes: data))
  }
}

extension Result where Failure == CardError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
