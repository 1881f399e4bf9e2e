import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// VENUE.QR: a venue's check-in code as a QR code for its poster, the owner's only.
@Suite("Venue QR codes")
struct VenueQRTests {
  @Test(
    "VENUE.QR encodes the check-in page's link (<public-url>/v/<code>) in each format; it follows a rotation; others get NOPERM; bad sizes are refused"
  )
  func venueQR() async throws {
    let server = try await TestDaemon.venues()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let id = try ana.venue("Cafe", 2.35, 48.85)
    let code = try ana.text("VENUE.CODE", id)
    // What a phone's camera opens: the venue's check-in page.
    func link(_ code: String) -> String { TestDaemon.publicURL + "/v/" + code }
    for (format, ext) in [("PNG", "png"), ("JPEG", "jpg")] {
      for level in ["L", "H"] {
        let image = try ana.image(["VENUE.QR", id, format, "ECC", level, "SIZE", "400"])
        #expect(try ImageTools.qrTexts(image, ext: ext) == [link(code)], "\(format) \(level)")
      }
    }
    let svg = try ana.image(["VENUE.QR", id, "SVG", "TRANSPARENT"])
    #expect(try ImageTools.qrTexts(try ImageTools.svgToPNG(svg), ext: "png") == [link(code)])

    let rotated = try ana.text("VENUE.ROTATE", id)
    #expect(rotated != code)
    #expect(
      try ImageTools.qrTexts(try ana.image(["VENUE.QR", id, "PNG"]), ext: "png") == [link(rotated)])

    #expect(try bo.text("VENUE.QR", id, "PNG") == "NOPERM the venue is not yours")
    #expect(try ana.text("VENUE.QR", "99", "PNG") == "NOTFOUND no such venue")
    #expect(
      try ana.text("VENUE.QR", id, "PNG", "SIZE", "1000000")
        == "ERR SIZE 1000000 is out of range (64 to 2048 pixels)")
    #expect(try ana.text("VENUE.QR", id, "BMP") == "ERR the format must be PNG, SVG or JPEG")
    #expect(try server.connect().text("VENUE.QR", id, "PNG").hasPrefix("NOAUTH"))
    await server.stop()
  }
}
