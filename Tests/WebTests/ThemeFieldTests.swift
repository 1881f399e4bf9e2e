import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// The card's theme colour and banner over both doors, and the banner under the photo's asset
/// rules.
@Suite("Card fields: theme colour and banner")
struct ThemeFieldTests {
  @Test(
    "themeColor and bannerUrl round-trip through CARD.CREATE and CARD.UPDATE over RESP and POST and PATCH /v1/cards, and stay out of the vCard; a bad colour is refused by both"
  )
  func roundTrip() async throws {
    try await TestDaemon.with { servers in
      let (resp, _, _, token) = try servers.member("ana@x.org")
      let made = try resp.object(
        "CARD.CREATE",
        ##"{"firstName":"Ana","themeColor":"#1A73E8","bannerUrl":"https://img.example/b.jpg"}"##)
      let id = try #require(made["id"] as? Int)
      #expect(made["themeColor"] as? String == "#1a73e8")
      #expect(made["bannerUrl"] as? String == "https://img.example/b.jpg")
      let patched = try resp.object("CARD.UPDATE", "\(id)", ##"{"themeColor":"#00ff7f"}"##)
      #expect(patched["themeColor"] as? String == "#00ff7f")
      #expect(patched["bannerUrl"] as? String == "https://img.example/b.jpg")
      #expect(
        try resp.text("CARD.UPDATE", "\(id)", ##"{"themeColor":"blue"}"##)
          == "INVALID themeColor: must be a colour as #rrggbb")
      // The page's look, not a contact detail: no vCard property holds them.
      let vcard = try resp.text("CARD.VCARD", "\(id)")
      #expect(
        vcard.hasPrefix("BEGIN:VCARD") && !vcard.contains("00ff7f") && !vcard.contains("b.jpg"))

      // The HTTP API reads and writes the same fields.
      let got = try await servers.send("GET", "/v1/cards/\(id)", token: token)
      #expect(got.object["themeColor"] as? String == "#00ff7f")
      let cleared = try await servers.send(
        "PATCH", "/v1/cards/\(id)", token: token,
        json: ##"{"themeColor":"#ABCDEF","bannerUrl":null}"##)
      #expect(cleared.status == 200)
      #expect(cleared.object["themeColor"] as? String == "#abcdef")
      #expect(cleared.object["bannerUrl"] == nil)
      #expect(try resp.object("CARD.GET", "\(id)")["themeColor"] as? String == "#abcdef")
      let refused = try await servers.send(
        "PATCH", "/v1/cards/\(id)", token: token, json: ##"{"themeColor":"#abc"}"##)
      #expect(refused.status == 400)
      #expect(refused.error == "INVALID themeColor: must be a colour as #rrggbb")
      let bad = try await servers.send(
        "PATCH", "/v1/cards/\(id)", token: token, json: #"{"bannerUrl":"javascript:alert(1)"}"#)
      #expect(bad.status == 400 && bad.error == "INVALID bannerUrl: must be an http or https URL")
    }
  }

  @Test(
    "a banner names its owner's image or logo upload as the photo does: another's, an unknown one, a CV or another spelling is refused; the page shows it from this server"
  )
  func bannerAssets() async throws {
    try await TestDaemon.with { servers in
      let (ana, anaId, _) = try servers.signedIn("ana@x.org")
      let (bo, _, _) = try servers.signedIn("bo@x.org")
      _ = try servers.connect().object("ACCOUNT.PRO", "\(anaId)", "1")
      let banner = try AssetTests.upload(ana, "IMAGE", "python.jpg")
      let cv = try AssetTests.upload(ana, "CV", "result.pdf")
      let boPicture = try AssetTests.upload(bo, "IMAGE", "python.webp")
      for (value, error) in [
        (boPicture, "INVALID bannerUrl: the asset is not yours"),
        (
          "\(TestDaemon.publicURL)/a/0123456789abcdef0123456789abcdef",
          "INVALID bannerUrl: no such asset"
        ),
        (cv, "INVALID bannerUrl: the asset's kind is cv; this field takes image or logo"),
        (
          banner + "?x",
          "INVALID bannerUrl: an asset's URL is \(TestDaemon.publicURL)/a/<32 hex "
            + "digits>, nothing more"
        ),
      ] {
        #expect(
          try ana.text("CARD.CREATE", #"{"firstName":"A","bannerUrl":"\#(value)"}"#) == error,
          "\(value)")
      }
      let card = try ana.object("CARD.CREATE", #"{"firstName":"A","bannerUrl":"\#(banner)"}"#)
      #expect(card["bannerUrl"] as? String == banner)
      let page = try await servers.get(URL(string: card["url"] as? String ?? "")!.path)
      #expect(
        page.text.contains(#"<img class="banner" src="\#(URL(string: banner)!.path)" alt="">"#))
      // The card was all that named it: deleting the card deletes the upload.
      #expect(try ana.text("CARD.DEL", "\(card["id"] as? Int ?? 0)") == "1")
      #expect(try await servers.get(URL(string: banner)!.path).status == 404)
    }
  }
}
