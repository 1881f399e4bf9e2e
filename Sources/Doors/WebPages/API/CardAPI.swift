import Accounts
import Cards
import Foundation
import Hummingbird
import RateLimits

/// The JSON and GeoJSON API for web and mobile clients (`/v1/…`, docs/HTTP.md, described by
/// `/openapi.json`): each route reads its parameters, calls the domain as CARD.* and WALLET.*
/// do, and writes the replies' own JSON (`CardJSON`, `CardGeoJSON`). The rules are the domain's.
struct CardAPI: Sendable {
  let accounts: Accounts
  let cards: Cards
  let views: CardViews
  let wallets: Wallets
  /// The map's searches by address (`geocode`).
  let geocodes = KeyedLimit(CardAPI.geocodesPerMinute, per: 60)

  /// A card's JSON is at most 32 KiB (`CardFields`); a larger body is refused unread.
  static let maxBodyBytes = 64 * 1024

  func add(to router: Router<PageContext>) {
    router.get("/v1/cards") { request, _ in await APIResponse.run { try clusters(request) } }
    router.get("/v1/cards/nearby") { request, _ in await APIResponse.run { try nearby(request) } }
    router.get("/v1/geocode") { request, context in
      await APIResponse.run {
        try await geocode(
          request, client: ClientAddress.key(context.remoteAddress?.ipAddress ?? "?"))
      }
    }
    router.get("/v1/cards/mine") { request, _ in await APIResponse.run { try mine(request) } }
    router.post("/v1/cards/mine") { request, _ in
      await APIResponse.run { try await create(request) }
    }
    router.get("/v1/cards/:id") { request, context in
      await APIResponse.run {
        try await card(
          request, id: context.parameters.get("id") ?? "",
          client: ClientAddress.key(context.remoteAddress?.ipAddress ?? "?"))
      }
    }
    router.patch("/v1/cards/:id") { request, context in
      await APIResponse.run { try await update(request, id: context.parameters.get("id") ?? "") }
    }
    router.delete("/v1/cards/:id") { request, context in
      await APIResponse.run { try await delete(request, id: context.parameters.get("id") ?? "") }
    }
    router.get("/v1/wallet") { request, _ in await APIResponse.run { try wallet(request) } }
    router.post("/v1/wallet") { request, context in
      await APIResponse.run {
        try await addToWallet(
          request, client: ClientAddress.key(context.remoteAddress?.ipAddress ?? "?"))
      }
    }
    router.delete("/v1/wallet/:cardId") { request, context in
      await APIResponse.run {
        try await removeFromWallet(request, cardId: context.parameters.get("cardId") ?? "")
      }
    }
    router.get("/openapi.json") { _, _ in
      APIResponse.json(OpenAPIDocument.data)
    }
  }

  // MARK: Signed-in requests

  /// The account of the request's session token (`Authorization: Bearer <token>`), resolved as
  /// SESSION.RESUME resolves it.
  func account(_ request: Request) throws(APIError) -> Int64 {
    try BearerToken.apiAccount(request, accounts)
  }

  /// The request's body as text, at most `maxBodyBytes` (413 past it).
  static func body(_ request: Request) async throws -> String {
    var request = request
    return String(buffer: try await request.collectBody(upTo: maxBodyBytes))
  }

  /// The domain's answer to a change, once durable.
  static func done<T: Sendable>(_ start: (@escaping Cards.Done<T>) -> Void) async throws(APIError)
    -> T
  {
    let result = await withCheckedContinuation { continuation in
      start { continuation.resume(returning: $0) }
    }
    switch result {
    case .success(let value): return value
    case .failure(let error): throw APIError(error)
    }
  }
}
