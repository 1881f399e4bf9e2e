import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// The account pages over real sockets (`/account/…`): what a browser does with them, and what
/// a page elsewhere, another account or a client without one cannot.
@Suite("Account pages")
struct AccountPagesTests {
  /// An 8×8 PNG.
  static let png = [UInt8](
    Data(
      base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC"
    )!)

  /// A browser signed up and signed in as `email`.
  static func signedIn(_ server: TestDaemon, _ email: String) async throws -> FormBrowser {
    let browser = FormBrowser(port: server.httpPort)
    let signUp = try await browser.get("/account/signup")
    let made = try await browser.post(
      "/account/signup",
      ["csrf": signUp.csrf ?? "", "email": email, "password": "secret1"])
    #expect(made.status == 303 && made.location == "/account/signin?made=1", "\(made.text)")
    let form = try await browser.get("/account/signin")
    let opened = try await browser.post(
      "/account/signin", ["csrf": form.csrf ?? "", "email": email, "password": "secret1"])
    #expect(opened.status == 303 && opened.location == "/account/cards", "\(opened.text)")
    return browser
  }

  /// The browser's card ids, as its list links them.
  static func cardIDs(_ browser: FormBrowser) async throws -> [Int] {
    let list = try await browser.get("/account/cards")
    return list.text.components(separatedBy: #"href="/account/cards/"#).dropFirst()
      .compactMap { Int($0.prefix { $0.isNumber }) }
  }

  static func newCard(_ browser: FormBrowser, _ fields: [String: String], photo: [UInt8]? = nil)
    async throws -> FormBrowser.Page
  {
    let form = try await browser.get("/account/cards/new")
    return try await browser.post(
      "/account/cards", fields.merging(["csrf": form.csrf ?? ""]) { $1 },
      files: photo.map { ["photo": $0] } ?? ["none": []])
  }

  @Test(
    "sign up, sign in (a session cookie: HttpOnly, Secure, SameSite=Lax), create a card with a photo, edit it (an emptied field cleared), see it in the list and on its page, delete it; the card is the account's, as CARD.MINE reads it"
  )
  func cardsOnTheWeb() async throws {
    let server = try await TestDaemon.web()
    let browser = try await Self.signedIn(server, "ana@x.org")
    let session = try #require(
      browser.setCookies.withLock { $0 }.first { $0.hasPrefix("cardatlas_session=") })
    for attribute in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"] {
      #expect(session.contains(attribute), "\(session)")
    }
    let made = try await Self.newCard(
      browser, ["firstName": "Ana", "lastName": "Lima", "company": "Acme", "city": "Lyon"],
      photo: Self.png)
    #expect(made.status == 303 && made.location == "/account/cards?saved=1", "\(made.text)")
    let ids = try await Self.cardIDs(browser)
    #expect(ids.count == 1)
    let id = try #require(ids.first)

    // As RESP reads it: the account's, with the uploaded photo and the city.
    let c = try server.connect()
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    let card = try c.object("CARD.GET", "\(id)")
    #expect(card["firstName"] as? String == "Ana" && card["company"] as? String == "Acme")
    #expect((card["address"] as? [String: Any])?["city"] as? String == "Lyon")
    #expect((card["imageUrl"] as? String)?.hasPrefix(TestDaemon.publicURL + "/a/") == true)

    // Edited: the company changed, the last name emptied (cleared), the photo kept.
    let edit = try await browser.get("/account/cards/\(id)")
    #expect(edit.text.contains(#"value="Lima""#))
    let saved = try await browser.post(
      "/account/cards/\(id)",
      ["csrf": edit.csrf ?? "", "firstName": "Ana", "lastName": "", "company": "Atlas"],
      files: ["none": []])
    #expect(saved.status == 303, "\(saved.text)")
    let after = try c.object("CARD.GET", "\(id)")
    #expect(after["company"] as? String == "Atlas" && after["lastName"] == nil)
    #expect(after["imageUrl"] as? String == card["imageUrl"] as? String)
    #expect(try await browser.get("/account/cards").text.contains("Atlas"))

    let list = try await browser.get("/account/cards")
    let deleted = try await browser.post("/account/cards/\(id)/delete", ["csrf": list.csrf ?? ""])
    #expect(deleted.status == 303 && deleted.location == "/account/cards?deleted=1")
    #expect(try await Self.cardIDs(browser).isEmpty)
    let gone = try c.command("CARD.GET", "\(id)")
    #expect(gone.text.contains("NOTFOUND no such card"), "\(gone)")
    await server.stop()
  }

  @Test(
    "CSRF: a POST without the token, with another browser's token, from another origin, cross-site, or with Origin null does nothing (403); signing in needs the form's token too; the right token acts"
  )
  func forgedForms() async throws {
    let server = try await TestDaemon.web()
    let ana = try await Self.signedIn(server, "ana@x.org")
    _ = try await Self.newCard(ana, ["firstName": "Ana"])
    let id = try #require(try await Self.cardIDs(ana).first)
    let token = try #require(try await ana.get("/account/cards").csrf)
    // Another browser's own token, valid for its own cookies only.
    let eve = try await Self.signedIn(server, "eve@x.org")
    let eveToken = try #require(try await eve.get("/account/cards").csrf)

    let forged: [(String, [String: String], [String: String])] = [
      ("no token", [:], ["Origin": "", "Sec-Fetch-Site": "same-origin"]),
      ("another's token", ["csrf": eveToken], ["Origin": "", "Sec-Fetch-Site": "same-origin"]),
      ("another origin", ["csrf": token], ["Origin": "http://evil.example"]),
      ("cross-site", ["csrf": token], ["Sec-Fetch-Site": "cross-site"]),
      ("Origin null", ["csrf": token], ["Origin": "null"]),
    ]
    for (what, fields, headers) in forged {
      let page = try await ana.post("/account/cards/\(id)/delete", fields, headers: headers)
      #expect(page.status == 403, "\(what): \(page.status)")
      #expect(page.text.contains("The form was not sent"), "\(what)")
    }
    #expect(try await Self.cardIDs(ana) == [id], "nothing was deleted")

    // Login CSRF: a page elsewhere posting a sign-in form has no form cookie to match.
    let victim = FormBrowser(port: server.httpPort)
    let forgedSignIn = try await victim.post(
      "/account/signin", ["csrf": eveToken, "email": "eve@x.org", "password": "secret1"],
      headers: [:])
    #expect(forgedSignIn.status == 403)
    #expect(victim.cookies.withLock { $0["cardatlas_session"] } == nil)

    let deleted = try await ana.post("/account/cards/\(id)/delete", ["csrf": token])
    #expect(deleted.status == 303)
    #expect(try await Self.cardIDs(ana).isEmpty)
    await server.stop()
  }

  @Test(
    "another account's card: its edit page, an edit and a delete answer 404 and change nothing; signed out, the pages send to sign-in and a POST acts on nothing"
  )
  func anotherAccountsCard() async throws {
    let server = try await TestDaemon.web()
    let ana = try await Self.signedIn(server, "ana@x.org")
    _ = try await Self.newCard(ana, ["firstName": "Ana", "company": "Acme"])
    let id = try #require(try await Self.cardIDs(ana).first)
    let bo = try await Self.signedIn(server, "bo@x.org")
    let token = try #require(try await bo.get("/account/cards").csrf)
    #expect(try await bo.get("/account/cards/\(id)").status == 404)
    let edit = try await bo.post(
      "/account/cards/\(id)", ["csrf": token, "firstName": "Mallory"], files: ["none": []])
    #expect(edit.status == 404)
    #expect(try await bo.post("/account/cards/\(id)/delete", ["csrf": token]).status == 404)
    let c = try server.connect()
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try c.object("CARD.GET", "\(id)")["firstName"] as? String == "Ana")

    let nobody = FormBrowser(port: server.httpPort)
    for path in ["/account/cards", "/account/cards/new", "/account/cards/\(id)", "/account/wallet"]
    {
      let page = try await nobody.get(path)
      #expect(page.status == 303 && page.location == "/account/signin", "\(path)")
    }
    let form = try await nobody.get("/account/signin")
    let post = try await nobody.post("/account/cards/\(id)/delete", ["csrf": form.csrf ?? ""])
    #expect(post.status == 303 && post.location == "/account/signin")
    #expect(try c.object("CARD.GET", "\(id)")["firstName"] as? String == "Ana")
    await server.stop()
  }

  @Test(
    "a wrong password and an unknown email get the same page; a taken email's sign-up answers as a new one's, makes no account and mails its owner; sign-ups from one address stop at the limit (429, Retry-After)"
  )
  func nothingTellsWhichEmailsExist() async throws {
    let server = try await TestDaemon.web(accounts: { $0.signUpsPerAddress = 3 })
    _ = try await Self.signedIn(server, "ana@x.org")
    let browser = FormBrowser(port: server.httpPort)
    func signIn(_ email: String, _ password: String) async throws -> FormBrowser.Page {
      let form = try await browser.get("/account/signin")
      return try await browser.post(
        "/account/signin", ["csrf": form.csrf ?? "", "email": email, "password": password])
    }
    let wrongPassword = try await signIn("ana@x.org", "wrong-password")
    let unknownEmail = try await signIn("zed@x.org", "wrong-password")
    #expect(wrongPassword.status == 401 && unknownEmail.status == 401)
    let same = { (page: FormBrowser.Page, email: String) in
      page.text.replacingOccurrences(of: email, with: "EMAIL")
    }
    #expect(same(wrongPassword, "ana@x.org") == same(unknownEmail, "zed@x.org"))
    #expect(wrongPassword.text.contains("Wrong email or password."))

    let taken = try await browser.post(
      "/account/signup",
      [
        "csrf": try await browser.get("/account/signup").csrf ?? "", "email": "ana@x.org",
        "password": "another1",
      ])
    #expect(taken.status == 303 && taken.location == "/account/signin?made=1")
    #expect(try await server.sql("SELECT count(*) FROM accounts") == "1")
    #expect(try await signIn("ana@x.org", "another1").status == 401)
    // The owner is told (the outbox, without a mail server).
    var mailed: [String] = []
    for _ in 0..<100 where mailed.isEmpty {
      mailed =
        ((try? FileManager.default.contentsOfDirectory(atPath: server.directory + "/outbox")) ?? [])
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(!mailed.isEmpty)

    // Three sign-ups an hour from this address (ana's and the taken one's counted): the next
    // is refused.
    _ = try await browser.post(
      "/account/signup",
      [
        "csrf": try await browser.get("/account/signup").csrf ?? "", "email": "bo@x.org",
        "password": "secret1",
      ])
    let limited = try await browser.post(
      "/account/signup",
      [
        "csrf": try await browser.get("/account/signup").csrf ?? "", "email": "cy@x.org",
        "password": "secret1",
      ])
    #expect(limited.status == 429, "\(limited.text)")
    #expect(limited.headers["Retry-After"].flatMap(Int.init) ?? 0 > 0)
    await server.stop()
  }

  @Test(
    "signing out ends the session (its cookie no longer signs in); a reset mail links to the page, its token sets a new password once, and every session of the account ends"
  )
  func signOutAndReset() async throws {
    let server = try await TestDaemon.web()
    let browser = try await Self.signedIn(server, "ana@x.org")
    let old = try #require(browser.cookies.withLock { $0["cardatlas_session"] })
    let token = try #require(try await browser.get("/account/cards").csrf)
    let out = try await browser.post("/account/signout", ["csrf": token])
    #expect(out.status == 303 && out.location == "/account/signin?out=1")
    #expect(
      browser.cookies.withLock { $0["cardatlas_session"] } == nil,
      "\(browser.setCookies.withLock { $0 })")
    browser.cookies.withLock { $0["cardatlas_session"] = old }
    #expect(try await browser.get("/account/cards").location == "/account/signin")

    // A second browser signed in: the reset signs it out too.
    let signedIn = FormBrowser(port: server.httpPort)
    let form = try await signedIn.get("/account/signin")
    _ = try await signedIn.post(
      "/account/signin", ["csrf": form.csrf ?? "", "email": "ana@x.org", "password": "secret1"])
    #expect(try await signedIn.get("/account/cards").status == 200)

    let ask = try await browser.get("/account/reset")
    let asked = try await browser.post(
      "/account/reset", ["csrf": ask.csrf ?? "", "email": "ana@x.org"])
    let unknown = try await browser.post(
      "/account/reset", ["csrf": ask.csrf ?? "", "email": "zed@x.org"])
    #expect(asked.status == 200 && asked.text.contains("Check your mail"))
    #expect(asked.text == unknown.text.replacingOccurrences(of: "zed@x.org", with: "ana@x.org"))
    let mail = try #require(try await Self.mail(in: server.directory + "/outbox"))
    let link = try #require(
      mail.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .first { $0.hasPrefix(TestDaemon.publicURL + "/account/reset?token=") })
    let path = String(link.dropFirst(TestDaemon.publicURL.count))
    let page = try await browser.get(path)
    #expect(page.status == 200 && page.text.contains("Choose a new password"))
    let resetToken = try #require(FormBrowser.Page.value(of: "token", in: page.text))
    let reset = try await browser.post(
      "/account/reset/confirm",
      ["csrf": page.csrf ?? "", "token": resetToken, "password": "new-secret"])
    #expect(reset.status == 303 && reset.location == "/account/signin?reset=1", "\(reset.text)")
    #expect(try await signedIn.get("/account/cards").location == "/account/signin")
    // The link again (the form anew: its token follows the browser's cookies, now signed out).
    let second = try await browser.get(path)
    let again = try await browser.post(
      "/account/reset/confirm",
      ["csrf": second.csrf ?? "", "token": resetToken, "password": "third-secret"])
    #expect(again.status == 400 && again.text.contains("unknown, used or expired"))
    let c = try server.connect()
    #expect(try c.text("AUTH", "ana@x.org", "new-secret") == "OK")
    await server.stop()
  }

  static func mail(in outbox: String) async throws -> String? {
    for _ in 0..<100 {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []
      if let name = names.first(where: { $0.hasSuffix(".eml") }) {
        return try String(contentsOfFile: outbox + "/" + name, encoding: .utf8)
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    return nil
  }

  @Test(
    "bad forms: too large (413), not a form (415), malformed multipart or too many fields (400), a photo that is no image (400, the domain's reason, no card); hostile text comes back escaped; loopback HTTP gets cookies without Secure"
  )
  func badForms() async throws {
    let server = try await TestDaemon.web(cards: { $0.publicURL = "http://127.0.0.1:8080" })
    let browser = try await Self.signedIn(server, "ana@x.org")
    #expect(
      browser.setCookies.withLock { $0 }.allSatisfy { !$0.contains("Secure") },
      "loopback HTTP: \(browser.setCookies.withLock { $0 })")
    let token = try #require(try await browser.get("/account/cards").csrf)
    let big = try await browser.send(
      "POST", "/account/wallet", body: Data(repeating: 97, count: 70_000),
      type: "application/x-www-form-urlencoded", headers: [:])
    #expect(big.status == 413)
    let json = try await browser.send(
      "POST", "/account/wallet", body: Data(#"{"csrf":"x"}"#.utf8), type: "application/json",
      headers: [:])
    #expect(json.status == 415)
    let broken = try await browser.send(
      "POST", "/account/cards", body: Data("--b\r\nno headers end".utf8),
      type: "multipart/form-data; boundary=b", headers: [:])
    #expect(broken.status == 400)
    let many = (0..<100).map { "f\($0)=1" }.joined(separator: "&")
    let tooMany = try await browser.send(
      "POST", "/account/wallet", body: Data(many.utf8),
      type: "application/x-www-form-urlencoded", headers: [:])
    #expect(tooMany.status == 400)

    let notImage = try await browser.post(
      "/account/cards", ["csrf": token, "firstName": "Ana"], files: ["photo": Array("hello".utf8)])
    #expect(notImage.status == 400, "\(notImage.text)")
    #expect(notImage.text.contains(#"class="error""#))
    #expect(try await Self.cardIDs(browser).isEmpty)

    let hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>"
    let made = try await Self.newCard(browser, ["firstName": hostile, "company": hostile])
    #expect(made.status == 303, "\(made.text)")
    let id = try #require(try await Self.cardIDs(browser).first)
    for page in [
      try await browser.get("/account/cards"), try await browser.get("/account/cards/\(id)"),
    ] {
      #expect(!page.text.contains("<script>alert") && !page.text.contains("<img src=x"))
      #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }
    await server.stop()
  }
}
