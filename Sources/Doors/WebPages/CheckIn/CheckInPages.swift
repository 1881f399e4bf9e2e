import ErrorLines
import Foundation
import Hummingbird
import RateLimits
import Venues

/// A venue's check-in page (`/v/<code>`), where its QR code sends a phone's camera: the venue,
/// and a check-in as CHECKIN makes for a signed-in browser, or as a guest who leaves a name and
/// an email or a phone. A rotated code's page says the code changed. Server-drawn forms with
/// the account pages' CSRF checks (`AccountPages.posted`).
struct CheckInPages: Sendable {
  let pages: AccountPages
  var venues: Venues { pages.venues }
  var site: AccountSite { pages.site }

  /// The segment after `/v/` is `:venue`, as in the QR image's route (`/v/<id>/qr.png`): the
  /// router takes one name at one place. Here it holds the code.
  func add(to router: Router<PageContext>) {
    router.get("/v/:venue") { request, context in
      page(request, code: context.parameters.get("venue") ?? "")
    }
    router.post("/v/:venue") { request, context in
      let code = context.parameters.get("venue") ?? ""
      return await pages.posted(request) { form in
        if let session = WebSession.signedIn(request, pages.accounts) {
          return await checkIn(request, code, session)
        }
        return await checkInGuest(request, context, code, form)
      }
    }
    router.post("/v/:venue/checkout") { request, context in
      let code = context.parameters.get("venue") ?? ""
      return await pages.postedSignedIn(request) { _, session in
        let result = await AccountPage.finished {
          venues.checkOut(account: session.account.id, $0)
        }
        guard case .success = result else { return failed(request, code, result) }
        return notice(
          request, "Checked out", "You are checked out.",
          detail: "Thank you for checking out.", status: .ok)
      }
    }
  }

  /// The venue and its form; a rotated or unknown code's notice.
  func page(
    _ request: Request, code: String, error: String? = nil, name: String? = nil,
    email: String? = nil, phone: String? = nil, status: HTTPResponse.Status = .ok
  ) -> Response {
    let venue: Venue
    switch venues.page(code: code) {
    case .unknown: return unknown(request)
    case .rotated(let old): return rotated(request, old)
    case .venue(let shown): venue = shown
    }
    let signedIn = WebSession.signedIn(request, pages.accounts)
    var form = AccountPage.Form(
      title: "Check in at \(venue.name)", heading: venue.name, action: "/v/\(code)",
      submit: "Check in", intro: venue.address, error: error)
    if let signedIn {
      form.submit = "Check in as \(signedIn.account.email)"
    } else {
      let hours = Self.duration(venues.configuration.guestStay)
      form.done =
        "Check in as a guest: leave your name and an email or a phone. The venue keeps them, "
        + "and you are told by email if someone who was here at the same time reports a "
        + "positive test. A guest's stay counts for \(hours)."
      form.fields = [
        .init(
          label: "Name", name: "name", value: name, autocomplete: "name", required: true,
          maxLength: Venues.maxNameLength),
        .init(
          label: "Email", name: "email", kind: .input(type: "email"), value: email,
          autocomplete: "email", maxLength: 254),
        .init(
          label: "Phone", name: "phone", kind: .input(type: "tel"), value: phone,
          autocomplete: "tel", maxLength: 32),
      ]
      form.submit = "Check in as a guest"
      form.links = [("Have an account?", "/account/signin?next=/v/\(code)", "Sign in to check in")]
    }
    return AccountPage.render(
      site, form, request: request, signedIn: signedIn != nil, status: status)
  }

  private func checkIn(_ request: Request, _ code: String, _ session: WebSession.SignedIn) async
    -> Response
  {
    let result = await AccountPage.finished {
      venues.checkIn(account: session.account.id, code: code, at: nil, $0)
    }
    guard case .success(let checkIn) = result, let visit = checkIn.visit else {
      return failed(request, code, result)
    }
    let name = venues.venue(visit.venueId)?.name ?? "the venue"
    return AccountPage.render(
      site,
      AccountPage.Form(
        title: "Checked in", heading: "You are checked in at \(name).",
        action: "/v/\(code)/checkout", submit: "Check out",
        done: "Since \(Venues.readableTime(visit.start)). Check out when you leave."),
      request: request, signedIn: true)
  }

  private func checkInGuest(
    _ request: Request, _ context: PageContext, _ code: String, _ form: SubmittedForm
  ) async -> Response {
    let (name, email, phone) = (form["name"] ?? "", form["email"], form["phone"])
    let result = await AccountPage.finished {
      venues.checkInGuest(
        code: code, name: name, email: email, phone: phone,
        client: AccountPages.address(context), $0)
    }
    switch result {
    case .success(let guest):
      let venue = venues.venue(guest.venueId)?.name ?? "the venue"
      return notice(
        request, "Checked in", "You are checked in at \(venue), \(guest.name).",
        detail: "From \(Venues.readableTime(guest.start)) until \(Venues.readableTime(guest.end)).",
        status: .ok)
    case .failure(.invalid(let field, let reason)):
      return page(
        request, code: code, error: "\(field.capitalized): \(reason).", name: name, email: email,
        phone: phone, status: .badRequest)
    case .failure(.limit(let why)):
      var response = page(
        request, code: code, error: MyCardPages.sentence(why), name: name, email: email,
        phone: phone, status: .tooManyRequests)
      if let seconds = why.split(separator: " ").dropLast().last.flatMap({ Int($0) }) {
        response.headers[.retryAfter] = "\(seconds)"
      }
      return response
    case .failure: return failed(request, code, result)
    }
  }

  /// A refusal as a page: the venue's form with the reason, or the code's notice.
  private func failed<T>(_ request: Request, _ code: String, _ result: Result<T, VenueError>)
    -> Response
  {
    guard case .failure(let error) = result else { return page(request, code: code) }
    switch error {
    case .notFound: return page(request, code: code)
    case .tryAgain, .notPersisted:
      return page(
        request, code: code, error: "Not saved: try again in a moment.",
        status: .serviceUnavailable)
    default:
      return page(
        request, code: code, error: MyCardPages.sentence(error.message), status: .badRequest)
    }
  }

  private func unknown(_ request: Request) -> Response {
    notice(
      request, "No such venue", "No venue has this code.",
      detail: "Check the link, or scan the venue's QR code again.", status: .notFound)
  }

  private func rotated(_ request: Request, _ venue: Venue) -> Response {
    notice(
      request, "Code changed", "\(venue.name)'s check-in code has changed.",
      detail: "This code no longer checks anyone in. Scan the QR code at the venue again.",
      status: .gone)
  }

  private func notice(
    _ request: Request, _ title: String, _ heading: String, detail: String,
    status: HTTPResponse.Status
  ) -> Response {
    AccountPage.render(
      site, "notice", ["title": title, "heading": heading, "detail": detail],
      request: request, status: status)
  }

  static func duration(_ seconds: Double) -> String {
    let minutes = Int((seconds / 60).rounded())
    if minutes % 60 == 0 { return minutes == 60 ? "1 hour" : "\(minutes / 60) hours" }
    return "\(minutes) minutes"
  }
}
