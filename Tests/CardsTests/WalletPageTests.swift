import Cards
import Testing

/// A wallet page as both doors read it: `WALLET.LIST COUNT n CURSOR c` and `GET /v1/wallet`.
@Suite("Wallet pages")
struct WalletPageTests {
  @Test(
    "a count of 1 to 1000, 20 by default; a cursor of a page's next, or 0 or none for the newest")
  func accepted() throws {
    #expect(try WalletPage().count == 20 && WalletPage().cursor == nil)
    #expect(try WalletPage(count: "1").count == 1)
    #expect(try WalletPage(count: "1000").count == 1000)
    #expect(try WalletPage(cursor: "0").cursor == nil)
    let cursor = try #require(WalletCursor("1764249600000000-42"))
    #expect(try WalletPage(count: "5", cursor: cursor.text).cursor == cursor)
  }

  @Test("anything else is refused, never clamped, with the error both doors answer")
  func refused() {
    for count in ["0", "1001", "-1", "x", "", "99999999999999999999"] {
      #expect(throws: CardError.badQuery("COUNT must be an integer 1 to 1000"), "\(count)") {
        try WalletPage(count: count)
      }
    }
    for cursor in ["bad", "1-", "-1", "1-2-3", ""] {
      #expect(throws: CardError.badQuery("invalid cursor"), "\(cursor)") {
        try WalletPage(cursor: cursor)
      }
    }
  }
}
