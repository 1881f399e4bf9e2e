import Cards
import ErrorLines
import Foundation
import Hummingbird
import RateLimits

/// The signed-in account's wallet on the web (`/account/wallet`): the cards it holds, newest
/// first, adding one by its share code or link (as WALLET.ADD, with its limits on code reads),
/// and removing one (as WALLET.DEL).
struct WalletPages: Sendable {
  let pages: AccountPages
  var wallets: Wallets { pages.wallets }

  /// The page lists this many, newest first.
  static let shown = 200

  func add(to router: Router<PageContext>) {
    router.get("/account/wallet") { request, _ in
      pages.signedInPage(request) { list(request, $0) }
    }
    router.post("/account/wallet") { request, context in
      await pages.postedSignedIn(request) { form, session in
        let client = ClientAddress.key(context.remoteAddress?.ipAddress ?? "?")
        let added = await AccountPage.finished {
          wallets.add(account: session.account.id, form.text("card") ?? "", client: client, $0)
        }
        switch added {
        case .success: return AccountPage.redirect("/account/wallet?added=1")
        case .failure(let error):
          var response = list(
            request, session, error: MyCardPages.sentence(error.message),
            status: APIError(error).status)
          if case .limited(let limit) = error {
            response.headers[.retryAfter] = "\(limit.retryAfter)"
          }
          return response
        }
      }
    }
    router.post("/account/wallet/:id/delete") { request, context in
      await pages.postedSignedIn(request) { _, session in
        guard let id = context.parameters.get("id").flatMap(Int64.init) else {
          return list(request, session, error: "No such card in your wallet.", status: .notFound)
        }
        let removed = await AccountPage.finished {
          wallets.remove(account: session.account.id, cardId: id, $0)
        }
        switch removed {
        case .success(true): return AccountPage.redirect("/account/wallet?removed=1")
        case .success(false):
          return list(request, session, error: "No such card in your wallet.", status: .notFound)
        case .failure(let error):
          return list(
            request, session, error: MyCardPages.sentence(error.message),
            status: APIError(error).status)
        }
      }
    }
  }

  func list(
    _ request: Request, _ session: WebSession.SignedIn, error: String? = nil,
    status: HTTPResponse.Status = .ok
  ) -> Response {
    let query = request.uri.queryParameters
    // The first page is the newest; a count within WALLET.LIST's bound always reads.
    let page = (try? WalletPage(count: "\(Self.shown)", cursor: nil))
    let entries = page.map { wallets.list(account: session.account.id, page: $0).0 } ?? []
    var model: [String: Any] = [
      "title": "Wallet",
      "entries": entries.map { entry -> [String: Any] in
        // An inactive card shows nothing but that it is no longer active.
        guard entry.isActive else {
          return ["id": entry.card.id, "name": "A card no longer active", "detail": ""]
        }
        var item: [String: Any] = [
          "id": entry.card.id, "name": CardForm.name(entry.card.fields),
          "detail": [entry.card.fields.jobTitle, entry.card.fields.company].compactMap { $0 }
            .joined(separator: ", "),
        ]
        item["page"] = pages.cards.url(of: entry.card).map { URL(string: $0)?.path ?? $0 }
        return item
      },
    ]
    model["error"] = error
    model["done"] =
      query.get("added") != nil
      ? "Added to your wallet." : query.get("removed") != nil ? "Removed from your wallet." : nil
    return AccountPage.render(
      pages.site, "account-wallet", model, request: request, status: status)
  }
}
