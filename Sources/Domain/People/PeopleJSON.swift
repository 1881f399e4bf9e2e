import Cards
import Foundation

/// The JSON of people's replies and messages, written directly (`JSONText`): card summaries,
/// exchanges as each side sees them, requests. Never a coordinate of a person.
public enum PeopleJSON {
  /// What a search or a request shows of someone's card.
  public static func summary(_ card: Card, cards: Cards) -> JSONText {
    CardSummary.text(card, url: cards.url(of: card))
  }

  public static func nearby(_ person: People.Nearby, cards: Cards) -> JSONText {
    var object = JSONText()
    object.add("accountId", person.accountId)
    object.add("distance", Int64(person.distance))
    object.add("card", object: summary(person.card, cards: cards))
    return object
  }

  /// An exchange as `viewer` sees it: the other account, the card received (while it is
  /// there and active), when, and roughly where.
  public static func exchange(_ e: Exchange, viewer: Int64, cards: Cards) -> JSONText {
    var object = JSONText()
    object.add("id", e.id)
    let (other, received) = e.accountA == viewer ? (e.accountB, e.cardB) : (e.accountA, e.cardA)
    object.add("accountId", other)
    object.add("cardId", received)
    if let card = cards.card("\(received)", viewer: viewer), card.ownerId == other {
      object.add("card", object: summary(card, cards: cards))
    }
    object.add("at", timestamp(e.date))
    if let lon = e.longitude, let lat = e.latitude {
      object.add("lon", number: lon)
      object.add("lat", number: lat)
    }
    object.add("place", e.place)
    return object
  }

  public static func request(_ r: ExchangeRequest, cards: Cards) -> JSONText {
    var object = JSONText()
    object.add("accountId", r.accountId)
    object.add("direction", r.outgoing ? "outgoing" : "incoming")
    object.add("requestedAt", timestamp(r.date))
    if let card = r.card { object.add("card", object: summary(card, cards: cards)) }
    return object
  }

  public static func timestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle())
  }
}
