import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Harvesting cards, written as the attack: an account walking the sequential ids, and one
/// guessing codes as fast as it may.
@Suite("Card harvesting")
struct HarvestTests {
  static let hidden = #"""
    {"firstName":"Ana","phoneNumber":"+33 6 12 34 56 78","email":"ana@example.org",
    "location":{"lon":2.3522,"lat":48.8566}}
    """#
  static let onMap = #"""
    {"firstName":"Bo","showOnMap":true,"location":{"lon":2.36,"lat":48.86}}
    """#

  @Test(
    "CARD.GET 1..N by another account reads only the cards on the map; a card kept off the map needs its code and then shows no location; its owner and a wallet holding it read it by id"
  )
  func walkingIds() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let secret = try ana.object("CARD.CREATE", Self.hidden)
    let shown = try bo.object("CARD.CREATE", Self.onMap)
    let (secretID, code) = (secret["id"] as? Int ?? 0, secret["code"] as? String ?? "")
    let publicID = shown["id"] as? Int ?? 0

    let (mallory, _, _) = try server.signedIn("mallory@x.org")
    var frames: [UInt8] = []
    for id in 1...50 { frames += RESPConnection.frame(["CARD.GET", "\(id)"]) }
    try mallory.send(frames)
    var read: [Int] = []
    for _ in 1...50 {
      if case .bulkString(let b) = try mallory.reply().value,
        let card = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any], let id = card["id"] as? Int
      {
        read.append(id)
      }
    }
    #expect(read == [publicID], "the walk read \(read)")
    #expect(try mallory.text("CARD.GET", "\(secretID)") == "NOTFOUND no such card")
    #expect(try mallory.text("CARD.VCARD", "\(secretID)") == "NOTFOUND no such card")

    // By its code (what a QR code or a link carries): the card, without its location.
    let shared = try mallory.object("CARD.GET", code)
    #expect(shared["phoneNumber"] as? String == "+33 6 12 34 56 78")
    #expect(shared["location"] == nil)
    #expect(try !mallory.text("CARD.VCARD", code).contains("GEO"))
    #expect(try mallory.object("CARD.GET", "\(publicID)")["location"] != nil, "on the map")

    // The owner, and a wallet holding the card, read it by id; only the owner sees where.
    #expect(try ana.object("CARD.GET", "\(secretID)")["location"] != nil)
    _ = try mallory.object("WALLET.ADD", code)
    let held = try mallory.object("CARD.GET", "\(secretID)")
    #expect(held["id"] as? Int == secretID && held["location"] == nil)
    let listed = try mallory.text("WALLET.LIST")
    #expect(!listed.contains("48.8566") && !listed.contains("\"location\""))
    await server.stop()
  }

  @Test(
    "reading cards by code (or share URL) is limited per account and per address, so new accounts do not reset it; LIMIT says when to retry"
  )
  func guessingCodes() async throws {
    let server = try await TestDaemon(cards: {
      $0.codeReadsPerAccount = 5
      $0.codeReadsPerAddress = 8
    })
    let (ana, _, username) = try server.signedIn("ana@x.org")
    let code = try ana.object("CARD.CREATE", Self.hidden)["code"] as? String ?? ""
    let (guesser, _, _) = try server.signedIn("guess@x.org")
    for i in 0..<4 {
      #expect(try guesser.text("CARD.GET", "zzzz\(i)zzz") == "NOTFOUND no such card")
    }
    #expect(try guesser.object("CARD.OPEN", username)["state"] as? String == "card")
    let refused = try guesser.text("CARD.GET", code)
    #expect(refused.hasPrefix("LIMIT at most 5 cards by code an hour, retry after "), "\(refused)")
    // A fresh account from the same address gets what is left of the address's eight.
    let (fresh, _, _) = try server.signedIn("fresh@x.org")
    for _ in 0..<3 { #expect(try fresh.object("CARD.GET", code)["firstName"] as? String == "Ana") }
    #expect(try fresh.text("CARD.GET", code).hasPrefix("LIMIT"))
    // From another address, a reader is not held up.
    let elsewhere = try server.connect(from: "127.0.0.2")
    _ = try elsewhere.signUp("elsewhere@x.org")
    #expect(try elsewhere.object("CARD.GET", code)["firstName"] as? String == "Ana")
    await server.stop()
  }
}
