import Accounts
import Assets
import Cards
import DomainTestSupport
import Foundation
import MediaFiles
import RedisTestSupport
import SQLiteDomainStorage
import Testing

/// The uploads' rules, in process on a temporary store: what each kind takes, the quota and the
/// hourly limit, and which cards may name an upload.
@Suite("Assets in process")
struct AssetsTests {
  static let migrations =
    SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteAssets.migrations

  static func assets(
    _ temporary: TemporaryStore, _ configure: (inout Assets.Configuration) -> Void = { _ in }
  ) async throws -> (Assets, Cards, ana: Int64, bo: Int64) {
    let (accounts, ids) = try await temporary.accounts(signingUp: [
      "ana@example.org", "bo@example.org",
    ])
    let cards = try Cards(storage: SQLiteCards(temporary.store), accounts: accounts)
    var configuration = Assets.Configuration()
    configuration.uploadsPerHour = 0
    configure(&configuration)
    let assets = try Assets(
      storage: SQLiteAssets(temporary.store), accounts: accounts, cards: cards,
      media: try MediaFiles(directory: temporary.directory + "/media"),
      configuration: configuration)
    return (assets, cards, ids[0], ids[1])
  }

  @Test("each kind takes its types only; an upload is served as it came")
  func kinds() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (assets, _, ana, _) = try await Self.assets(temporary)
    let (png, pdf) = (try MediaFixtures.bytes("python.png"), try MediaFixtures.bytes("result.pdf"))
    let image = try await answer { assets.put(owner: ana, kind: .image, bytes: png, $0) }.get()
    let cv = try await answer { assets.put(owner: ana, kind: .cv, bytes: pdf, $0) }.get()
    #expect(image.kind == .image && cv.kind == .cv)
    for (kind, bytes) in [(AssetKind.cv, png), (.image, pdf), (.logo, pdf)] {
      let refused = await answer { assets.put(owner: ana, kind: kind, bytes: bytes, $0) }
      #expect(throws: AssetError.type(kind), "\(kind)") { try refused.get() }
    }
    let opened = try await answer { assets.open(image.id, $0) }.get()
    #expect(opened.bytes == png && opened.asset.id == image.id)
    #expect(Set(assets.assets(of: ana).map(\.id)) == [image.id, cv.id])
  }

  @Test("one account's uploads stop at its quota and its hourly limit; another's go on")
  func quotaAndRate() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let png = try MediaFixtures.bytes("python.png")
    let (assets, _, ana, bo) = try await Self.assets(temporary) {
      $0.quotaBytes = png.count * 2
      $0.uploadsPerHour = 3
    }
    for _ in 0..<2 {
      _ = try await answer { assets.put(owner: ana, kind: .image, bytes: png, $0) }.get()
    }
    let overQuota = await answer { assets.put(owner: ana, kind: .image, bytes: png, $0) }
    #expect(throws: AssetError.quota(used: png.count * 2, quota: png.count * 2)) {
      try overQuota.get()
    }
    // The refused upload counted against the hour too: the fourth is past it.
    let overRate = await answer { assets.put(owner: ana, kind: .image, bytes: png, $0) }
    guard case .failure(.limited) = overRate else {
      Issue.record("not limited: \(overRate)")
      return
    }
    _ = try await answer { assets.put(owner: bo, kind: .image, bytes: png, $0) }.get()
  }

  @Test("a card names its owner's upload by its URL, never another's")
  func cardsNameTheirOwnersUploads() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (assets, cards, ana, bo) = try await Self.assets(temporary)
    let png = try MediaFixtures.bytes("python.png")
    let upload = try await answer { assets.put(owner: ana, kind: .image, bytes: png, $0) }.get()
    let json = #"{"firstName":"Ana","imageUrl":"\#(assets.url(upload.id))"}"#
    let card = try await answer { cards.create(owner: ana, json: json, $0) }.get()
    #expect(card.fields.imageUrl == assets.url(upload.id))
    let stolen = await answer {
      cards.create(owner: bo, json: json.replacingOccurrences(of: "Ana", with: "Bo"), $0)
    }
    #expect(
      throws: CardError.invalid(CardFieldError(field: "imageUrl", reason: "the asset is not yours"))
    ) {
      try stolen.get()
    }
  }
}
