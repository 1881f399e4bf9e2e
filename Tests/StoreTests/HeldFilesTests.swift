import Foundation
import GRDB
import Testing

@testable import Store

/// What the domain keeps of its memory at a clean stop (`HeldFiles`): read back once by the
/// next opening, and never when the store may differ from it.
@Suite struct HeldFilesTests {
  static let bytes: [UInt8] = Array("the cards as held".utf8) + [0, 1, 2, 255]

  /// Opens the store and asks it, as it closes, to keep `bytes` (after `beforeKeep`'s writes,
  /// and then `afterKeep`'s).
  static func run(
    _ dir: String, beforeKeep: (Store) throws -> Void = { _ in },
    afterKeep: @escaping @Sendable (Store) -> Void = { _ in }
  ) throws {
    let store = try openStore(dir)
    try beforeKeep(store)
    store.whenClosing { [store] in
      try? store.keepHeld("cards") { bytes }
      afterKeep(store)
    }
    store.close()
  }

  static func write(_ store: Store, fails: Bool = false) throws {
    try store.commitAndWait([
      TransactionWrite { db in
        try db.execute(sql: "INSERT INTO strings (db, key, value) VALUES (0, 'k', 'v')")
        if fails { throw CancellationError() }
      }
    ])
  }

  @Test func keptAtCloseAndTakenOnceByTheNextOpening() async throws {
    try await withTemporaryDirectory { dir in
      try Self.run(dir)
      #expect(FileManager.default.fileExists(atPath: dir + "/cards.held"))
      let store = try openStore(dir)
      // Taken out as the store opened: a crash from here on finds no token.
      #expect(try store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM held_files") } == 0)
      #expect(store.takeHeld("cards").map(Array.init) == Self.bytes)
      #expect(store.takeHeld("cards") == nil)
      #expect(!FileManager.default.fileExists(atPath: dir + "/cards.held"))
      store.close()
      // Closed without keeping anything: the next opening has nothing.
      let again = try openStore(dir)
      #expect(again.takeHeld("cards") == nil)
      again.close()
    }
  }

  @Test func anOpeningThatDoesNotTakeItLeavesNothingForTheNext() async throws {
    try await withTemporaryDirectory { dir in
      try Self.run(dir)
      // As `cardatlas import --data` opens the store, writes and closes.
      let importer = try openStore(dir)
      try Self.write(importer)
      importer.close()
      let store = try openStore(dir)
      #expect(store.takeHeld("cards") == nil)
      store.close()
    }
  }

  @Test func aWriteAfterTheFileWasMadeLeavesNoFile() async throws {
    try await withTemporaryDirectory { dir in
      try Self.run(dir, afterKeep: { store in try? Self.write(store) })
      #expect(!FileManager.default.fileExists(atPath: dir + "/cards.held"))
      let store = try openStore(dir)
      #expect(store.takeHeld("cards") == nil)
      #expect(
        try store.read { try String.fetchOne($0, sql: "SELECT CAST(value AS TEXT) FROM strings") }
          == "v")
      store.close()
    }
  }

  @Test func aWriteRefusedThisRunKeepsNothing() async throws {
    try await withTemporaryDirectory { dir in
      try Self.run(
        dir,
        beforeKeep: { store in
          #expect(throws: (any Error).self) { try Self.write(store, fails: true) }
        })
      let store = try openStore(dir)
      #expect(store.takeHeld("cards") == nil)
      store.close()
    }
  }

  @Test func aCommitRefusedAfterTheCloseRemovesTheFile() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      store.whenClosing { [store] in try? store.keepHeld("cards") { Self.bytes } }
      store.close()
      #expect(FileManager.default.fileExists(atPath: dir + "/cards.held"))
      // A write memory took in before the close, refused after it: the file would lack it.
      #expect(throws: (any Error).self) { try Self.write(store) }
      #expect(!FileManager.default.fileExists(atPath: dir + "/cards.held"))
      let again = try openStore(dir)
      #expect(again.takeHeld("cards") == nil)
      again.close()
    }
  }

  @Test func aFileFromAnotherRunIsNotRead() async throws {
    try await withTemporaryDirectory { dir in
      try Self.run(dir)
      let old = try Data(contentsOf: URL(fileURLWithPath: dir + "/cards.held"))
      let store = try openStore(dir)
      _ = store.takeHeld("cards")
      store.close()
      try Self.run(dir)
      // The older file, under the newer token.
      try old.write(to: URL(fileURLWithPath: dir + "/cards.held"))
      let again = try openStore(dir)
      #expect(again.takeHeld("cards") == nil)
      again.close()
    }
  }
}
