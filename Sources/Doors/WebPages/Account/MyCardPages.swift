import Assets
import Cards
import ErrorLines
import Foundation
import Hummingbird

/// The signed-in account's cards on the web (`/account/cards`): the list, a form to create or
/// edit one (a photo uploaded with it, as ASSET.PUT; placed on the map at its address, as
/// CARD.LOCATE ADDRESS), and deleting one. Each calls what CARD.CREATE, CARD.UPDATE and
/// CARD.DEL call, so the card rules are the domain's.
struct MyCardPages: Sendable {
  let pages: AccountPages
  var cards: Cards { pages.cards }
  var assets: Assets { pages.assets }

  func add(to router: Router<PageContext>) {
    router.get("/account/cards") { request, _ in
      pages.signedInPage(request) { list(request, $0) }
    }
    router.get("/account/cards/new") { request, _ in
      pages.signedInPage(request) { _ in form(request, nil) }
    }
    router.post("/account/cards") { request, _ in
      await pages.postedSignedIn(request, limit: formLimit) { form, session in
        await save(request, form, owner: session.account.id, editing: nil)
      }
    }
    router.get("/account/cards/:id") { request, context in
      pages.signedInPage(request) { session in
        own(context.parameters.get("id"), session).map { form(request, $0) } ?? notFound(request)
      }
    }
    router.post("/account/cards/:id") { request, context in
      await pages.postedSignedIn(request, limit: formLimit) { form, session in
        guard let card = own(context.parameters.get("id"), session) else {
          return notFound(request)
        }
        return await save(request, form, owner: session.account.id, editing: card)
      }
    }
    router.post("/account/cards/:id/delete") { request, context in
      await pages.postedSignedIn(request) { _, session in
        guard let card = own(context.parameters.get("id"), session) else {
          return notFound(request)
        }
        let deleted = await AccountPage.finished {
          cards.delete(owner: session.account.id, id: card.id, $0)
        }
        if case .failure(let error) = deleted {
          return list(request, session, error: error.message, status: .serviceUnavailable)
        }
        return AccountPage.redirect("/account/cards?deleted=1")
      }
    }
  }

  /// A card form with its photo: the largest upload and room for the fields.
  var formLimit: Int { assets.configuration.maxBytes + AccountPages.maxFormBytes }

  /// The account's own card by the id in the path; another's, or none, is nil.
  func own(_ id: String?, _ session: WebSession.SignedIn) -> Card? {
    guard let id = id.flatMap(Int64.init) else { return nil }
    return cards.cards(of: session.account.id).first { $0.id == id }
  }

  func list(
    _ request: Request, _ session: WebSession.SignedIn, error: String? = nil,
    status: HTTPResponse.Status = .ok
  ) -> Response {
    let query = request.uri.queryParameters
    var model: [String: Any] = [
      "title": "My cards",
      "cards": cards.cards(of: session.account.id).map { card -> [String: Any] in
        var item: [String: Any] = [
          "id": card.id, "name": CardForm.name(card.fields),
          "detail": [card.fields.jobTitle, card.fields.company].compactMap { $0 }.joined(
            separator: ", "),
        ]
        item["page"] = cards.url(of: card).map { URL(string: $0)?.path ?? $0 } ?? "#"
        return item
      },
    ]
    model["error"] = error ?? query.get("unplaced").flatMap { Self.unplaced[String($0)] }
    model["done"] =
      query.get("deleted") != nil
      ? "The card is deleted." : query.get("saved") != nil ? "Saved." : nil
    return AccountPage.render(
      pages.site, "account-cards", model, request: request, status: status)
  }

  func form(
    _ request: Request, _ card: Card?, values: CardForm? = nil, error: String? = nil,
    status: HTTPResponse.Status = .ok
  ) -> Response {
    let values = values ?? card.map { CardForm(card: $0.fields) } ?? CardForm()
    return AccountPage.render(
      pages.site,
      AccountPage.Form(
        title: card == nil ? "New card" : "Edit card",
        heading: card == nil ? "New card" : "Edit \(CardForm.name(card!.fields))",
        action: card.map { "/account/cards/\($0.id)" } ?? "/account/cards",
        submit: card == nil ? "Create the card" : "Save", error: error, multipart: true,
        fields: values.fields(hasPhoto: card?.fields.imageUrl != nil)),
      request: request, signedIn: true, status: status)
  }

  func notFound(_ request: Request) -> Response {
    AccountPage.render(
      pages.site, "notice",
      ["title": "Card not found", "heading": "No card of yours here."], request: request,
      status: .notFound)
  }

  /// Creates or updates the card from the form: the photo first (refused files stop here),
  /// then the fields, then its place on the map when asked.
  func save(_ request: Request, _ form: SubmittedForm, owner: Int64, editing card: Card?) async
    -> Response
  {
    var values = CardForm(form: form)
    if let photo = form.files["photo"] {
      let stored = await AccountPage.finished {
        assets.put(owner: owner, kind: .image, bytes: photo, $0)
      }
      switch stored {
      case .success(let asset): values.imageUrl = assets.url(asset.id)
      case .failure(let error):
        return self.form(
          request, card, values: values, error: Self.sentence(error.message),
          status: .badRequest)
      }
    }
    let saved = await AccountPage.finished { done in
      if let card {
        cards.update(owner: owner, id: card.id, patch: values.json(patch: true), done)
      } else {
        cards.create(owner: owner, json: values.json(patch: false), done)
      }
    }
    let savedCard: Card
    switch saved {
    case .success(let made): savedCard = made
    case .failure(let error):
      return self.form(
        request, card, values: values, error: Self.sentence(error.message),
        status: APIError(error).status)
    }
    return await place(savedCard, owner: owner, wanted: values.showOnMap)
  }

  /// Places a card shown on the map where its address is, when it has one and is not placed
  /// there yet; what went wrong is told on the list (the card is saved).
  func place(_ card: Card, owner: Int64, wanted: Bool) async -> Response {
    guard wanted, card.fields.address != nil,
      card.fields.location == nil || card.fields.location?.source == .geocoded
    else { return AccountPage.redirect("/account/cards?saved=1") }
    guard let geocoder = cards.configuration.geocoder else {
      return AccountPage.redirect("/account/cards?unplaced=geocoder")
    }
    let placed = await AccountPage.finished {
      cards.locateByAddress(owner: owner, id: card.id, geocoder: geocoder, $0)
    }
    switch placed {
    case .success: return AccountPage.redirect("/account/cards?saved=1")
    case .failure(.addressNotFound): return AccountPage.redirect("/account/cards?unplaced=address")
    case .failure: return AccountPage.redirect("/account/cards?unplaced=lookup")
    }
  }

  /// Why a saved card is not on the map, by the list's `unplaced` (never text from the URL).
  static let unplaced = [
    "geocoder": "Saved. This server looks up no addresses, so the card is not on the map.",
    "address": "Saved, but no place matches the card's address: it is not on the map.",
    "lookup": "Saved, but the address could not be looked up just now: it is not on the map.",
  ]

  /// An error line as a sentence: its code word dropped (`INVALID email: x` → `Email: x.`).
  static func sentence(_ message: String) -> String {
    let words = message.split(separator: " ", maxSplits: 1)
    guard words.count == 2, words[0].allSatisfy(\.isUppercase) else { return message }
    let rest = String(words[1])
    let text = rest.prefix(1).uppercased() + rest.dropFirst()
    return text.hasSuffix(".") ? text : text + "."
  }
}
