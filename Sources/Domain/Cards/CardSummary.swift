import Accounts

/// What a map hit shows, enough for a pin and its popup: the card's id, `firstName`, `prefix`,
/// `lastName`, `jobTitle`, `company`, `imageUrl`, the address's `city` and the share `url`, as
/// JSON text (keys sorted, `JSONText`). Written as a card is placed on the map, and kept beside
/// the map's index (`CardMap`): a search answers ten of these, and building each from the card
/// and its owner cost more than the search.
public enum CardSummary {
  /// The summary of `card` if it may be on the map (its owner shows it, it is active, it has a
  /// location); nil otherwise.
  static func onMap(_ card: Card, owner: Account?, publicURL: String) -> [UInt8]? {
    guard let owner, card.fields.showOnMap, card.fields.location != nil,
      card.isActive(ownerIsPro: owner.isPro)
    else { return nil }
    return json(card, url: publicURL + card.path(username: owner.username))
  }

  static func json(_ card: Card, url: String) -> [UInt8] { Array(text(card, url: url).text.utf8) }

  /// The summary as a JSON object, for replies that hold a card's summary (people nearby).
  public static func text(_ card: Card, url: String?) -> JSONText {
    let f = card.fields
    var object = JSONText()
    object.add("id", card.id)
    object.add("firstName", f.firstName)
    object.add("prefix", f.prefix)
    object.add("lastName", f.lastName)
    object.add("jobTitle", f.jobTitle)
    object.add("company", f.company)
    object.add("imageUrl", f.imageUrl)
    object.add("city", f.address?.city)
    object.add("url", url)
    return object
  }
}
