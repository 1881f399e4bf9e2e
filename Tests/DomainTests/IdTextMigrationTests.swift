import Accounts
import Cards
import DaemonTestSupport
import Foundation
import GRDB
import RedisTestSupport
import SQLiteDomainStorage
import Store
import Testing

/// accounts-v3 and cards-v4 over a store made before them: the random usernames and share codes
/// given then keep working (printed QR codes carry them), no id is given twice, every foreign
/// key and the point index survive the rebuilt tables, and new rows get their ids' texts,
/// skipping an id whose text an old row already has.
@Suite("Usernames and share codes made from ids, over an older store")
struct IdTextMigrationTests {
  /// The migrations of a store made before accounts-v3 and cards-v4.
  static let before =
    Array(SQLiteAccounts.migrations.prefix(2)) + Array(SQLiteCards.migrations.prefix(3))
    + SQLiteWallets.migrations
    + SQLiteCardViews.migrations
  static let after =
    SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
    + SQLiteCardViews.migrations

  /// Accounts 1 and 2 and cards 1 and 2 as the older build wrote them (random texts), account
  /// 3 and card 3 deleted (so the sequences, at 3, are above the rows' ids), a wallet entry.
  static func olderStore(_ directory: String) async throws {
    let store = try Store(directory: directory, migrations: before)
    defer { store.close() }
    try await store.commit(
      [
        TransactionWrite { db in
          try db.execute(
            sql: """
              INSERT INTO accounts (id, email, email_key, username, is_pro, created_at) VALUES
                (1, 'Old@example.com', 'old@example.com', 'legacy', 1, 1700000000),
                (2, 'two@example.com', 'two@example.com', 'second', 0, 1700000000),
                (3, 'gone@example.com', 'gone@example.com', 'gone00', 0, 1700000000);
              INSERT INTO cards (id, owner_id, code, slug, is_primary, fields, created_at,
                updated_at, geom) VALUES
                (1, 1, 'abcdefgh', 'a1b', 1,
                  '{"firstName":"Old","location":{"lon":9.52,"lat":47.14,"source":"manual"}}',
                  1700000000, 1700000000, MakePoint(9.52, 47.14, 4326)),
                (2, 2, 'zzzzzzzz', 'c2d', 1, '{"firstName":"Two"}', 1700000000, 1700000000,
                  NULL),
                (3, 3, 'gggggggg', 'e3f', 1, '{"firstName":"Gone"}', 1700000000, 1700000000,
                  NULL);
              INSERT INTO wallet_entries (account_id, card_id, added_at) VALUES (2, 1, 1700000001);
              DELETE FROM cards WHERE id = 3;
              DELETE FROM accounts WHERE id = 3;
              """)
        }
      ])
  }

  @Test(
    "old usernames and codes still resolve; new rows get their ids' texts, after the sequences, skipping an id whose text an old row has",
    .enabled(
      if: !TestDaemon.overPostgres,
      "an older embedded store's upgrade; migrate's suite moves such a store into PostgreSQL"))
  func olderStoreUpgrades() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-idtext-\(UUID().uuidString)").path
    try await Self.olderStore(directory)
    // The upgrade; then account 2 and card 2 are given the texts id 4 would get, as if their
    // random draws had met them.
    let (usernames, codes) = try await Self.upgrade(directory)
    let server = try await TestDaemon(directory: directory)

    let (c, id, username) = try server.signedIn("new@example.com")
    #expect(id == 5)
    #expect(username == usernames.text(5))
    #expect(username.wholeMatch(of: /[a-z0-9]{6}/) != nil)
    let card = try c.object(
      "CARD.CREATE", #"{"firstName":"New","location":{"lon":9.5,"lat":47.1}}"#)
    #expect(card["id"] as? Int == 5)
    #expect(card["code"] as? String == codes.text(5))
    #expect((card["code"] as? String)?.wholeMatch(of: /[a-hjkmnp-z2-9]{8}/) != nil)

    for round in ["before a restart", "after"] {
      if round == "after" { try await server.restart() }
      let viewer = try server.connect()
      _ = try viewer.signUp("viewer-\(round.count)@example.com")
      // The old code, the old username in a share URL, the new code, the account whose
      // username an id's text took.
      #expect(try viewer.object("CARD.GET", "abcdefgh")["id"] as? Int == 1, "\(round)")
      #expect(
        try viewer.object("WALLET.ADD", "https://cards.test/c/legacy")["id"] as? Int == 1,
        "\(round)")
      #expect(try viewer.object("CARD.GET", codes.text(5))["id"] as? Int == 5, "\(round)")
      #expect(try viewer.object("CARD.GET", codes.text(4))["id"] as? Int == 2, "\(round)")
      let two = try viewer.object("CARD.GET", codes.text(4))
      #expect(two["url"] as? String == "https://cards.test/c/" + usernames.text(4), "\(round)")
    }
    await server.daemon.stop()
    try Self.checkTables(directory)
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// What the store holds once upgraded and written to: the texts, the foreign keys, the point
  /// index.
  static func checkTables(_ directory: String) throws {
    try DatabaseQueue(path: directory + "/cardatlas.sqlite").write { db in
      // New rows store no text; old ones keep theirs.
      #expect(try Bool.fetchOne(db, sql: "SELECT code IS NULL FROM cards WHERE id = 5") == true)
      #expect(try String.fetchOne(db, sql: "SELECT code FROM cards WHERE id = 1") == "abcdefgh")
      #expect(
        try Bool.fetchOne(db, sql: "SELECT username IS NULL FROM accounts WHERE id = 5") == true)
      #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
      // The point index kept the old card's entry and indexes the new one (its triggers are
      // back); GIS tools still find the geometry column.
      #expect(
        try Int64.fetchAll(db, sql: "SELECT pkid FROM idx_cards_geom ORDER BY pkid") == [1, 5])
      #expect(
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM geometry_columns WHERE f_table_name = 'cards'") == 1)
      // The foreign keys still cascade from the rebuilt accounts to the rebuilt cards, and
      // from those to the wallets; the point index's delete trigger follows.
      try db.execute(sql: "PRAGMA foreign_keys = ON")
      try db.execute(sql: "DELETE FROM accounts WHERE id = 1")
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM cards WHERE owner_id = 1") == 0)
      #expect(
        try Int.fetchOne(db, sql: "SELECT count(*) FROM wallet_entries WHERE card_id = 1") == 0)
      #expect(try Int64.fetchAll(db, sql: "SELECT pkid FROM idx_cards_geom") == [5])
    }
  }

  /// Runs the migrations since; checks the sequences survived; gives account 2 and card 2 the
  /// texts of id 4. Returns the store's username and code texts.
  static func upgrade(_ directory: String) async throws -> (IdText, IdText) {
    let store = try Store(directory: directory, migrations: after)
    defer { store.close() }
    let (usernames, codes, sequences) = try store.read { db in
      (
        try SQLiteAccounts.usernames(db), try SQLiteCards.codes(db),
        try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence")
          .reduce(into: [String: Int64]()) { $0[$1["name"]] = $1["seq"] }
      )
    }
    #expect(sequences["accounts"] == 3)
    #expect(sequences["cards"] == 3)
    try await store.commit(
      [
        TransactionWrite { db in
          try db.execute(
            sql: "UPDATE accounts SET username = ? WHERE id = 2", arguments: [usernames.text(4)])
          try db.execute(
            sql: "UPDATE cards SET code = ? WHERE id = 2", arguments: [codes.text(4)])
        }
      ])
    return (usernames, codes)
  }
}
