extension Wallets {
  /// A card as `viewer` may read it (`CARD.GET`, `CARD.VCARD`, `GET /v1/cards/{id}`). Ids are
  /// sequential, so an id reads only the viewer's own card, one their wallet holds, or one on
  /// the map (where anyone may have found it); any other active card needs its share code,
  /// which cannot be guessed, and each look-up by code counts against the viewer's and their
  /// address's (`client`) hourly limit. Another's card that is not on the map shows no location
  /// (`Card.shown(to:)`).
  public func card(_ idOrCode: String, readBy viewer: Int64, client: String) -> Result<
    Card, CardError
  > {
    if let id = Int64(idOrCode), let card = cards.card(idOrCode, viewer: viewer), card.id == id {
      guard card.ownerId == viewer || cards.isOnMap(id) || holds(viewer, id) else {
        return .failure(.notFound)
      }
      return .success(card.shown(to: viewer))
    }
    if let refused = cards.countCodeRead(viewer: viewer, client: client) {
      return .failure(refused)
    }
    return cards.card(idOrCode, viewer: viewer).map { .success($0.shown(to: viewer)) }
      ?? .failure(.notFound)
  }

  /// The share URL of a card `viewer` may read, by `card(_:readBy:client:)`'s rule (what its QR
  /// code carries); an inactive card has none.
  public func shareURL(_ idOrCode: String, readBy viewer: Int64, client: String) -> Result<
    String, CardError
  > {
    card(idOrCode, readBy: viewer, client: client).flatMap { card in
      cards.url(of: card).map { .success($0) } ?? .failure(.inactive)
    }
  }
}
