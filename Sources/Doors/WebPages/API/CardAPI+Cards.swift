import Cards
import Foundation
import Hummingbird

/// The signed-in account's cards: CARD.MINE, CARD.CREATE, CARD.GET, CARD.UPDATE and CARD.DEL.
extension CardAPI {
  /// `GET /v1/cards/mine`.
  func mine(_ request: Request) throws(APIError) -> Response {
    let owner = try account(request)
    let texts = cards.cards(of: owner).map { CardJSON.text($0, cards: cards).text }
    return APIResponse.json("[" + texts.joined(separator: ",") + "]")
  }

  /// `POST /v1/cards/mine` with the card's JSON: 201 and the card, at its `Location`.
  func create(_ request: Request) async throws -> Response {
    let owner = try account(request)
    let json = try await Self.body(request)
    let card = try await Self.done { cards.create(owner: owner, json: json, $0) }
    var response = APIResponse.json(CardJSON.text(card, cards: cards).text, status: .created)
    response.headers[.location] = "/v1/cards/\(card.id)"
    return response
  }

  /// `GET /v1/cards/{id}` (an id or a share code): the card as CARD.GET reads it
  /// (`Wallets.card(_:readBy:client:)`), counted as a view as CARD.GET counts it (answered even
  /// if the view could not be stored).
  func card(_ request: Request, id: String, client: String) async throws(APIError) -> Response {
    let viewer = try account(request)
    let card: Card
    switch wallets.card(id, readBy: viewer, client: client) {
    case .failure(let error): throw APIError(error)
    case .success(let readable): card = readable
    }
    await views.counted(card, by: .account(viewer))
    return APIResponse.json(CardJSON.text(card, cards: cards).text)
  }

  /// `PATCH /v1/cards/{id}` with an RFC 7396 merge patch.
  func update(_ request: Request, id: String) async throws -> Response {
    let (owner, id) = try visible(request, id)
    let patch = try await Self.body(request)
    let card = try await Self.done { cards.update(owner: owner, id: id, patch: patch, $0) }
    return APIResponse.json(CardJSON.text(card, cards: cards).text)
  }

  /// `DELETE /v1/cards/{id}`: 204.
  func delete(_ request: Request, id: String) async throws -> Response {
    let (owner, id) = try visible(request, id)
    try await Self.done { cards.delete(owner: owner, id: id, $0) }
    return APIResponse.noContent()
  }

  /// The signed-in account and the card id it names, if it may see that card: another's
  /// inactive card is a 404 like a missing one (its existence is not told); another's active
  /// card goes on to the domain's refusal (403).
  private func visible(_ request: Request, _ text: String) throws(APIError) -> (Int64, Int64) {
    let owner = try account(request)
    guard let id = Int64(text), cards.card(String(id), viewer: owner) != nil else {
      throw .notFound
    }
    return (owner, id)
  }
}
