import Cards
import Foundation
import Hummingbird

/// The signed-in account's wallet: WALLET.LIST, WALLET.ADD and WALLET.DEL.
extension CardAPI {
  /// `GET /v1/wallet?count=&cursor=`: `{"cards": [...], "next": cursor or null}`, newest first;
  /// the page read as WALLET.LIST reads it (`WalletPage`).
  func wallet(_ request: Request) throws(APIError) -> Response {
    let holder = try account(request)
    let query = request.uri.queryParameters
    let page: WalletPage
    do throws(CardError) {
      page = try WalletPage(count: query.get("count"), cursor: query.get("cursor"))
    } catch {
      throw APIError(error)
    }
    let (entries, next) = wallets.list(account: holder, page: page)
    return APIResponse.json(
      CardJSON.data([
        "cards": entries.map { CardJSON.object($0, cards: cards) },
        "next": next.map { $0.text as Any } ?? NSNull(),
      ]))
  }

  /// `POST /v1/wallet` with `{"card": "<share code or share URL>"}`, as WALLET.ADD: the entry
  /// (adding a card already held answers it again).
  func addToWallet(_ request: Request, client: String) async throws -> Response {
    let holder = try account(request)
    let body = try await Self.body(request)
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
      let codeOrURL = object["card"] as? String
    else {
      throw APIError.badRequest("the body must be a JSON object {\"card\": \"<code or URL>\"}")
    }
    let entry = try await Self.done { wallets.add(account: holder, codeOrURL, client: client, $0) }
    return APIResponse.json(CardJSON.data(CardJSON.object(entry, cards: cards)))
  }

  /// `DELETE /v1/wallet/{cardId}`: 204, or 404 when the wallet does not hold it.
  func removeFromWallet(_ request: Request, cardId: String) async throws -> Response {
    let holder = try account(request)
    let notHeld = APIError(.notFound, "NOTFOUND the card is not in your wallet")
    guard let id = Int64(cardId) else { throw notHeld }
    // Not an `await` inside the guard's condition: Swift 6.3's optimiser crashes on it (release).
    let removed = try await Self.done { wallets.remove(account: holder, cardId: id, $0) }
    guard removed else { throw notHeld }
    return APIResponse.noContent()
  }
}
