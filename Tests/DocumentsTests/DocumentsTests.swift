import Accounts
import Documents
import DomainTestSupport
import Foundation
import MediaFiles
import RedisTestSupport
import SQLiteDomainStorage
import Testing

/// The private documents' rules, in process on a temporary store: what a document may be, whose
/// it is, the per-account limit, and what survives a restart.
@Suite("Documents in process")
struct DocumentsTests {
  /// Documents on a fresh store, with two accounts.
  static func documents(
    _ temporary: TemporaryStore, _ configure: (inout Documents.Configuration) -> Void = { _ in }
  )
    async throws -> (Documents, ana: Int64, bo: Int64)
  {
    let (accounts, ids) = try await temporary.accounts(signingUp: [
      "ana@example.org", "bo@example.org",
    ])
    var configuration = Documents.Configuration()
    configure(&configuration)
    return (
      try Self.make(temporary, accounts, configuration),
      ids[0], ids[1]
    )
  }

  /// Documents on the embedded store, their files in the temporary directory.
  static func make(
    _ temporary: TemporaryStore, _ accounts: Accounts,
    _ configuration: Documents.Configuration = .init()
  ) throws -> Documents {
    try Documents(
      storage: SQLiteDocuments(temporary.store),
      files: try MediaFiles(directory: temporary.directory + "/media/documents"),
      accounts: accounts, configuration: configuration)
  }

  @Test("a document is a PDF, JPEG or PNG of a known kind and a day not in the future")
  func whatADocumentIs() async throws {
    let temporary = try TemporaryStore(
      migrations: SQLiteAccounts.migrations + SQLiteDocuments.migrations)
    let (documents, ana, _) = try await Self.documents(temporary)
    let pdf = try MediaFixtures.bytes("result.pdf")
    let stored = try await answer {
      documents.put(owner: ana, kind: "test-positive", day: "2026-11-20", bytes: pdf, $0)
    }.get()
    #expect(stored.kind == .testPositive && stored.day == "2026-11-20" && stored.size == pdf.count)
    let refusals: [(String, String, [UInt8], DocumentError)] = [
      (
        "passport", "2026-11-20", pdf,
        .invalid(field: "kind", reason: "must be one of VACCINATION, TEST-POSITIVE, TEST-NEGATIVE")
      ),
      (
        "vaccination", "20-11-2026", pdf,
        .invalid(field: "date", reason: "must be a day, yyyy-mm-dd")
      ),
      ("vaccination", "2099-01-01", pdf, .invalid(field: "date", reason: "is in the future")),
      (
        "vaccination", "2026-11-20", try MediaFixtures.bytes("python.gif"),
        .invalid(field: "bytes", reason: "must be a PDF, JPEG or PNG file")
      ),
    ]
    for (kind, day, bytes, error) in refusals {
      let refused = await answer {
        documents.put(owner: ana, kind: kind, day: day, bytes: bytes, $0)
      }
      #expect(throws: error, "\(kind) \(day)") { try refused.get() }
    }
    #expect(documents.list(owner: ana).map(\.id) == [stored.id])
    #expect(documents.positiveTest(of: ana) == stored.date)
  }

  @Test("a document is its owner's only: another account reads and deletes nothing")
  func ownersOnly() async throws {
    let temporary = try TemporaryStore(
      migrations: SQLiteAccounts.migrations + SQLiteDocuments.migrations)
    let (documents, ana, bo) = try await Self.documents(temporary)
    let png = try MediaFixtures.bytes("python.png")
    let stored = try await answer {
      documents.put(owner: ana, kind: "vaccination", day: "2026-11-01", bytes: png, $0)
    }.get()
    let (read, bytes) = try documents.get(owner: ana, id: stored.id).get()
    #expect(read == stored && bytes == png)
    // Another's document is refused as not theirs (docs/PROTOCOL.md), an unknown id not found.
    #expect(throws: DocumentError.noPermission) {
      try documents.get(owner: bo, id: stored.id).get()
    }
    #expect(throws: DocumentError.notFound) { try documents.get(owner: ana, id: 999).get() }
    #expect(documents.list(owner: bo).isEmpty && documents.size(owner: bo, id: stored.id) == 0)
    let deleted = await answer { documents.delete(owner: bo, id: stored.id, $0) }
    #expect(throws: DocumentError.noPermission) { try deleted.get() }
    #expect(documents.list(owner: ana).count == 1)
    try await answer { documents.delete(owner: ana, id: stored.id, $0) }.get()
    #expect(documents.list(owner: ana).isEmpty)
  }

  @Test("at most the configured number of documents per account, and no larger than the bound")
  func limits() async throws {
    let temporary = try TemporaryStore(
      migrations: SQLiteAccounts.migrations + SQLiteDocuments.migrations)
    let (documents, ana, bo) = try await Self.documents(temporary) {
      $0.maxPerAccount = 2
      $0.maxBytes = 40_000
    }
    let pdf = try MediaFixtures.bytes("result.pdf")
    try #require(pdf.count <= 40_000)
    for day in ["2026-11-01", "2026-11-02"] {
      _ = try await answer {
        documents.put(owner: ana, kind: "vaccination", day: day, bytes: pdf, $0)
      }.get()
    }
    let third = await answer {
      documents.put(owner: ana, kind: "vaccination", day: "2026-11-03", bytes: pdf, $0)
    }
    #expect(throws: DocumentError.limit(2)) { try third.get() }
    let large = await answer {
      documents.put(
        owner: bo, kind: "vaccination", day: "2026-11-03",
        bytes: pdf + [UInt8](repeating: 0, count: 40_001 - pdf.count), $0)
    }
    #expect(throws: DocumentError.tooLarge(40_000)) { try large.get() }
    #expect(documents.list(owner: bo).isEmpty)
  }

  @Test("documents and their files are there after a restart")
  func restart() async throws {
    let temporary = try TemporaryStore(
      migrations: SQLiteAccounts.migrations + SQLiteDocuments.migrations)
    let (documents, ana, _) = try await Self.documents(temporary)
    let jpeg = try MediaFixtures.bytes("python.jpg")
    let stored = try await answer {
      documents.put(owner: ana, kind: "test-negative", day: "2026-11-10", bytes: jpeg, $0)
    }.get()
    _ = documents
    _ = try temporary.reopen()
    let reloaded = try Self.make(temporary, try await temporary.accounts().0)
    let (read, bytes) = try reloaded.get(owner: ana, id: stored.id).get()
    #expect(read == stored && bytes == jpeg)
  }
}
