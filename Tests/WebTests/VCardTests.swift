import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// vCards over HTTP and RESP: RFC 2426 / RFC 6350 line rules, and read back by a real parser.
@Suite("vCards")
struct VCardTests {
  /// Long multi-byte text (so that folding falls near characters of 2, 3 and 4 bytes), and the
  /// characters vCard text escapes.
  static let about = String(repeating: "é日🙂a", count: 40) + "\nback\\slash, comma; semi"
  static let card = """
    {"firstName":"Zoë","lastName":"Ångström","middleName":"Ann","prefix":"Dr.",
    "credentials":"PhD","jobTitle":"Chief, Maps; Data","company":"Acme, Inc; Labs",
    "phoneNumber":"+33 6 12 34 56 78","secondaryPhone":"(555) 123-4567",
    "email":"zoe@example.org","aboutMe":\(json(about)),
    "address":{"street":"1 Rue de Rivoli\\nBât. B","city":"Paris","postcode":"75001",
    "country":"France"},"location":{"lon":2.35,"lat":48.85},"showOnMap":true,
    "linkedIn":"zoe-obrien",
    "webLinks":[{"url":"https://zoe.example/a,b;c","displayText":"Portfolio"}],
    "imageUrl":"https://cards.test/img/pic1"}
    """

  static func json(_ text: String) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self)
      .dropFirst().dropLast().description
  }

  /// Checks the physical lines (CRLF only, at most 75 octets, each valid UTF-8 on its own) and
  /// returns the logical lines, unfolded.
  static func lines(_ body: Data, folded: Bool = true) -> [String] {
    let bytes = [UInt8](body)
    #expect(bytes.suffix(2) == [13, 10])
    var physical: [[UInt8]] = []
    var current: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == 13 {
        #expect(i + 1 < bytes.count && bytes[i + 1] == 10, "a CR without LF at \(i)")
        physical.append(current)
        current = []
        i += 2
        continue
      }
      #expect(bytes[i] != 10, "a bare LF at \(i)")
      current.append(bytes[i])
      i += 1
    }
    var logical: [String] = []
    for line in physical {
      #expect(line.count <= 75, "\(line.count) octets")
      let text = String(validating: line, as: UTF8.self)
      #expect(text != nil, "a line split inside a UTF-8 character")
      if line.first == 32, !logical.isEmpty {
        logical[logical.count - 1] += String(decoding: line.dropFirst(), as: UTF8.self)
      } else {
        logical.append(String(decoding: line, as: UTF8.self))
      }
    }
    if folded { #expect(physical.count > logical.count, "nothing was folded") }
    return logical
  }

  static func escapedAbout() -> String {
    String(repeating: "é日🙂a", count: 40) + "\\nback\\\\slash\\, comma\\; semi"
  }

  @Test(
    "vCard 3.0 by default: CRLF, folded at 75 octets without splitting a character, text escaped, N/FN/ORG/TITLE/TEL/EMAIL/URL/ADR/GEO/NOTE/PHOTO, the page's URL"
  )
  func version3() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", Self.card)
    let fetched = try await servers.get("/c/\(username)/card.vcf")
    #expect(fetched.status == 200)
    #expect(fetched.header("Content-Type") == "text/vcard; charset=utf-8")
    #expect(fetched.header("Content-Disposition") == "attachment; filename=\"\(username).vcf\"")
    #expect(fetched.header("X-Content-Type-Options") == "nosniff")
    let lines = Self.lines(fetched.body)
    #expect(lines.first == "BEGIN:VCARD" && lines[1] == "VERSION:3.0")
    #expect(lines.last == "END:VCARD")
    for expected in [
      "N:Ångström;Zoë;Ann;Dr.;PhD", "FN:Dr. Zoë Ann Ångström\\, PhD",
      "ORG:Acme\\, Inc\\; Labs", "TITLE:Chief\\, Maps\\; Data",
      "TEL;TYPE=CELL,VOICE,PREF:+33 6 12 34 56 78", "TEL;TYPE=WORK,VOICE:(555) 123-4567",
      "EMAIL;TYPE=INTERNET,PREF:zoe@example.org",
      "ADR;TYPE=WORK:;;1 Rue de Rivoli\\nBât. B;Paris;;75001;France",
      "GEO:48.850000;2.350000", "NOTE:" + Self.escapedAbout(),
      "PHOTO;VALUE=URI:https://cards.test/img/pic1", "URL:https://cards.test/c/\(username)",
      "URL:https://zoe.example/a%2Cb%3Bc",
      "X-SOCIALPROFILE;TYPE=linkedin:https://www.linkedin.com/in/zoe-obrien",
    ] {
      #expect(lines.contains(expected), "\(expected)")
    }
    await servers.stop()
  }

  @Test("a line break in a field cannot start a property of its own (CR, LF and CRLF escaped)")
  func lineBreakInjection() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object(
      "CARD.CREATE",
      #"{"firstName":"Ana","aboutMe":"a\r\nTEL:666\rEMAIL:evil@x.org\nEND:VCARD"}"#)
    for version in ["3", "4"] {
      let fetched = try await servers.get("/c/\(username)/card.vcf?v=\(version)")
      let lines = Self.lines(fetched.body, folded: false)
      #expect(lines.contains("NOTE:a\\nTEL:666\\nEMAIL:evil@x.org\\nEND:VCARD"), "\(lines)")
      #expect(!lines.contains { $0.hasPrefix("TEL") || $0.hasPrefix("EMAIL") })
      #expect(lines.filter { $0 == "END:VCARD" }.count == 1 && lines.last == "END:VCARD")
    }
    await servers.stop()
  }

  @Test("vCard 4.0 with ?v=4 (RFC 6350): tel: URIs, geo: URI, the same line rules; ?v=5 is refused")
  func version4() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", Self.card)
    let fetched = try await servers.get("/c/\(username)/card.vcf?v=4")
    #expect(fetched.status == 200)
    let lines = Self.lines(fetched.body)
    #expect(lines.first == "BEGIN:VCARD" && lines[1] == "VERSION:4.0")
    for expected in [
      "KIND:individual", "N:Ångström;Zoë;Ann;Dr.;PhD", "FN:Dr. Zoë Ann Ångström\\, PhD",
      "TEL;VALUE=uri;PREF=1;TYPE=\"cell,voice\":tel:+33612345678",
      "TEL;VALUE=uri;TYPE=\"work,voice\":tel:5551234567", "EMAIL;PREF=1:zoe@example.org",
      "GEO:geo:48.850000,2.350000", "PHOTO:https://cards.test/img/pic1",
      "NOTE:" + Self.escapedAbout(), "URL:https://cards.test/c/\(username)",
    ] {
      #expect(lines.contains(expected), "\(expected)")
    }
    #expect(lines.contains { $0.hasPrefix("REV:") && $0.hasSuffix("Z") && !$0.contains("-") })
    #expect(try await servers.get("/c/\(username)/card.vcf?v=5").status == 400)
    await servers.stop()
  }

  @Test("the vCard reads back with Python's vobject to the card's fields, in 3.0 and 4.0")
  func parsedBack() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", Self.card)
    let script = """
      import json, sys, vobject
      card = vobject.readOne(open(sys.argv[1], encoding="utf-8", newline="").read())
      n = card.n.value
      print(json.dumps({
        "fn": card.fn.value, "family": n.family, "given": n.given, "additional": n.additional,
        "prefix": n.prefix, "suffix": n.suffix, "org": card.org.value, "title": card.title.value,
        "tel": [t.value for t in card.contents["tel"]], "email": card.email.value,
        "note": card.note.value, "urls": [u.value for u in card.contents["url"]],
        "street": card.adr.value.street if hasattr(card.adr.value, "street") else None,
      }))
      """
    for version in ["3", "4"] {
      let fetched = try await servers.get("/c/\(username)/card.vcf?v=\(version)")
      let file = servers.directory + "/card\(version).vcf"
      try fetched.body.write(to: URL(fileURLWithPath: file))
      let (output, status) = try RedisProcess.run("python3", ["-c", script, file])
      #expect(status == 0, "\(output)")
      let parsed = try #require(
        try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
      #expect(parsed["fn"] as? String == "Dr. Zoë Ann Ångström, PhD", "v\(version)")
      #expect(parsed["family"] as? String == "Ångström" && parsed["given"] as? String == "Zoë")
      #expect(parsed["additional"] as? String == "Ann" && parsed["prefix"] as? String == "Dr.")
      #expect(parsed["suffix"] as? String == "PhD")
      #expect(parsed["org"] as? [String] == ["Acme, Inc; Labs"], "v\(version)")
      #expect(parsed["title"] as? String == "Chief, Maps; Data")
      #expect(parsed["email"] as? String == "zoe@example.org")
      #expect(parsed["note"] as? String == Self.about, "v\(version)")
      let tels = parsed["tel"] as? [String] ?? []
      #expect(
        tels
          == (version == "3"
            ? ["+33 6 12 34 56 78", "(555) 123-4567"] : ["tel:+33612345678", "tel:5551234567"]))
      let urls = parsed["urls"] as? [String] ?? []
      #expect(urls.contains("https://cards.test/c/\(username)"), "\(urls)")
      #expect(parsed["street"] as? String == "1 Rue de Rivoli\nBât. B", "v\(version)")
    }
    await servers.stop()
  }

  @Test(
    "CARD.VCARD <id|code> [3|4] over RESP: the same vCard as the page's, CARD.GET's visibility; bad versions and unknown cards refused"
  )
  func overRESP() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    let (bo, _, _) = try servers.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", Self.card)
    let cardId = "\(card["id"] as? Int ?? 0)"
    let code = try #require(card["code"] as? String)

    let http3 = try await servers.get("/c/\(username)/card.vcf").text
    let http4 = try await servers.get("/c/\(username)/card.vcf?v=4").text
    #expect(try bo.text("CARD.VCARD", cardId) == http3)
    #expect(try bo.text("CARD.VCARD", code, "3") == http3)
    #expect(try bo.text("CARD.VCARD", cardId, "4") == http4)
    #expect(try bo.text("CARD.VCARD", cardId, "5") == "ERR vCard version must be 3 or 4")
    #expect(try bo.text("CARD.VCARD", "999") == "NOTFOUND no such card")
    #expect(try bo.text("CARD.VCARD", cardId, "3", "x").hasPrefix("ERR syntax"))
    #expect(try servers.connect().text("CARD.VCARD", cardId).hasPrefix("NOAUTH"))

    // An inactive card: its owner still has its vCard (without a share URL), no one else.
    let admin = try servers.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Side"}"#)
    let secondId = "\(second["id"] as? Int ?? 0)"
    let secondCode = try #require(second["code"] as? String)
    #expect(try bo.text("CARD.VCARD", secondCode).contains("FN:Side\r\n"))
    // Not on the map and not in bo's wallet: its id reads nothing for bo.
    #expect(try bo.text("CARD.VCARD", secondId) == "NOTFOUND no such card")
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")
    #expect(try bo.text("CARD.VCARD", secondCode) == "NOTFOUND no such card")
    let own = try ana.text("CARD.VCARD", secondId)
    #expect(own.contains("FN:Side\r\n") && !own.contains("URL:"))
    await servers.stop()
  }
}
