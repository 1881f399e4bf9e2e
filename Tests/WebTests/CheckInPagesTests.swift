import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// A venue's check-in page (`/v/<code>`, what its QR code opens) over real sockets: a guest's
/// check-in and a signed-in one, what the venue's owner then sees, and what a page elsewhere,
/// a bad form or an old code gets.
@Suite("Check-in pages")
struct CheckInPagesTests {
  /// A server with a venue of owner@x.org; the owner's connection and the venue's id and code.
  static func venue() async throws -> (TestDaemon, RESPConnection, String, String) {
    let server = try await TestDaemon.web()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let venue = try owner.object("VENUE.CREATE", #"{"name":"Café Nord","lon":9.52,"lat":47.14}"#)
    let id = "\(venue["id"] as? Int ?? 0)"
    return (server, owner, id, try owner.text("VENUE.CODE", id))
  }

  static func guests(_ owner: RESPConnection, _ venue: String) throws -> [[String: Any]] {
    guard case .array(let items) = try owner.command(["VENUE.VISITORS", venue]).value else {
      return []
    }
    var guests: [[String: Any]] = []
    for case .bulkString(let b) in items {
      let object = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
      if let guest = (object as? [String: Any])?["guest"] as? [String: Any] { guests.append(guest) }
    }
    return guests
  }

  @Test(
    "a guest opens the page, leaves a name and an email or a phone, and is checked in; the owner sees the guest; a bad form says why and stores nothing; a post from elsewhere is refused"
  )
  func guest() async throws {
    let (server, owner, venue, code) = try await Self.venue()
    let browser = FormBrowser(port: server.httpPort)
    let page = try await browser.get("/v/\(code)")
    #expect(page.status == 200)
    for part in ["Café Nord", #"name="name""#, #"name="email""#, #"name="phone""#, "guest"] {
      #expect(page.text.contains(part), "\(part)")
    }
    #expect(page.headers["Cache-Control"] == "no-store")

    let noContact = try await browser.post("/v/\(code)", ["csrf": page.csrf ?? "", "name": "Ann"])
    #expect(
      noContact.status == 400 && noContact.text.contains("Contact: an email or a phone is needed."))
    #expect(noContact.text.contains(#"value="Ann""#), "what was typed is kept")
    let elsewhere = try await browser.post(
      "/v/\(code)", ["csrf": page.csrf ?? "", "name": "Eve", "email": "eve@x.org"],
      headers: ["Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"])
    #expect(elsewhere.status == 403)
    let forged = try await FormBrowser(port: server.httpPort).post(
      "/v/\(code)", ["csrf": "forged", "name": "Eve", "email": "eve@x.org"])
    #expect(forged.status == 403, "no form cookie, no check-in")
    #expect(try Self.guests(owner, venue).isEmpty)

    let done = try await browser.post(
      "/v/\(code)", ["csrf": page.csrf ?? "", "name": "Ann Lee", "email": "ann@x.org"])
    #expect(done.status == 200 && done.text.contains("You are checked in at Café Nord, Ann Lee"))
    #expect(done.text.contains("UTC"))
    let phone = try await browser.post(
      "/v/\(code)", ["csrf": page.csrf ?? "", "name": "Bo", "phone": "+41 79 123 45 67"])
    #expect(phone.status == 200)
    let listed = try Self.guests(owner, venue)
    #expect(listed.map { $0["name"] as? String } == ["Bo", "Ann Lee"])
    #expect(listed.last?["email"] as? String == "ann@x.org")
    #expect(listed.first?["phone"] as? String == "+41791234567")
    await server.stop()
  }

  @Test(
    "a signed-in browser checks in as its account and out again; signing in from the page comes back to it, and the way back is only ever a venue's page"
  )
  func signedIn() async throws {
    let (server, _, _, code) = try await Self.venue()
    let browser = try await AccountPagesTests.signedIn(server, "ana@x.org")
    let page = try await browser.get("/v/\(code)")
    #expect(page.status == 200 && page.text.contains("Check in as ana@x.org"))
    #expect(!page.text.contains(#"name="email""#), "no guest form for an account")
    let done = try await browser.post("/v/\(code)", ["csrf": page.csrf ?? ""])
    #expect(done.status == 200 && done.text.contains("You are checked in at Café Nord."))
    let c = try server.connect()
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    let last = try c.object("CHECKIN.LAST")
    #expect(last["venueName"] as? String == "Café Nord" && last["isOpen"] as? Bool == true)
    let out = try await browser.post("/v/\(code)/checkout", ["csrf": done.csrf ?? ""])
    #expect(out.status == 200 && out.text.contains("You are checked out"))
    #expect(try c.object("CHECKIN.LAST")["isOpen"] as? Bool == false)

    // Signing in from the page: the form carries the page back, and nothing else.
    let fresh = FormBrowser(port: server.httpPort)
    let guestPage = try await fresh.get("/v/\(code)")
    #expect(guestPage.text.contains("/account/signin?next=/v/\(code)"))
    for (next, expected) in [
      ("/v/\(code)", "/v/\(code)"), ("https://evil.example/", "/account/cards"),
      ("//evil.example/v/x", "/account/cards"), ("/v/../account", "/account/cards"),
    ] {
      let form = try await fresh.get(
        "/account/signin?next="
          + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
      let opened = try await fresh.post(
        "/account/signin",
        ["csrf": form.csrf ?? "", "email": "ana@x.org", "password": "secret1", "next": next])
      #expect(opened.status == 303 && opened.location == expected, "\(next)")
    }
    await server.stop()
  }

  @Test(
    "a venue's name and a guest's are escaped on the page and its answer (the XSS matrix's values), and the page runs no script"
  )
  func hostileText() async throws {
    let server = try await TestDaemon.web()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let hostile = #"<script>alert(1)</script>"'&<img src=x onerror=alert(2)>"#
    let json = try JSONSerialization.data(
      withJSONObject: ["name": hostile, "lon": 9.52, "lat": 47.14])
    let venue = try owner.object("VENUE.CREATE", String(decoding: json, as: UTF8.self))
    let code = try owner.text("VENUE.CODE", "\(venue["id"] as? Int ?? 0)")
    let browser = FormBrowser(port: server.httpPort)
    let page = try await browser.get("/v/\(code)")
    #expect(page.status == 200)
    let escaped =
      "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;img src=x onerror=alert(2)&gt;"
    #expect(page.text.contains(escaped), "\(page.text)")
    #expect(!page.text.contains("<script") && !page.text.contains("<img"))
    #expect(page.headers["Content-Security-Policy"]?.contains("script-src") == false)
    let done = try await browser.post(
      "/v/\(code)", ["csrf": page.csrf ?? "", "name": hostile, "email": "x@x.org"])
    #expect(done.status == 200 && done.text.contains(escaped))
    #expect(!done.text.contains("<script") && !done.text.contains("<img"))
    await server.stop()
  }

  @Test(
    "a rotated code's page names the venue and says the code changed (410); an unknown code is 404")
  func rotatedAndUnknown() async throws {
    let (server, owner, venue, code) = try await Self.venue()
    _ = try owner.text("VENUE.ROTATE", venue)
    let browser = FormBrowser(port: server.httpPort)
    let old = try await browser.get("/v/\(code)")
    #expect(old.status == 410 && old.text.contains("Café Nord&#39;s check-in code has changed"))
    let posted = try await browser.post(
      "/v/\(code)", ["csrf": old.csrf ?? "", "name": "Ann", "email": "ann@x.org"])
    #expect(posted.status == 403 || posted.status == 410, "\(posted.status)")
    #expect(try Self.guests(owner, venue).isEmpty)
    let unknown = try await browser.get("/v/nosuchcode")
    #expect(unknown.status == 404 && unknown.text.contains("No venue has this code"))
    await server.stop()
  }
}
