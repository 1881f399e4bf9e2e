import Accounts
import Documents
import DomainTestSupport
import Durability
import Foundation
import MediaFiles
import RedisTestSupport
import SQLiteDomainStorage
import Synchronization
import Testing

/// The documents' rules on a store of another kind than SQLite, as the PostgreSQL store will
/// be: `DocumentStorage` is all they ask of one. Here the rows live in memory, and a commit may
/// be told to fail, which the embedded store cannot be made to do on demand.
@Suite("Documents on another storage")
struct DocumentStorageTests {
  final class MemoryDocuments: DocumentStorage {
    /// A change to the rows, made when its commit is: in memory, that is when it is durable.
    struct Change: DurableWrite {
      let apply: @Sendable () -> Void
      func committed() { apply() }
    }

    let rows = Mutex<[Int64: Document]>([:])
    let failing = Atomic<Bool>(false)

    func loadAll() throws -> [Document] { rows.withLock { Array($0.values) } }

    func inserting(_ document: Document, limit: Int) -> any DurableWrite {
      Change { [self] in rows.withLock { $0[document.id] = document } }
    }

    func deleting(_ id: Int64) -> any DurableWrite {
      Change { [self] in rows.withLock { $0[id] = nil } }
    }

    func deletingAll(of account: Int64) -> any DurableWrite {
      Change { [self] in rows.withLock { $0 = $0.filter { $0.value.ownerId != account } } }
    }

    func commit(
      _ writes: [any DurableWrite],
      completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
      guard !failing.load(ordering: .relaxed) else {
        return completion(.failure(CocoaError(.fileWriteOutOfSpace)))
      }
      for write in writes { write.committed() }
      completion(.success(()))
    }
  }

  @Test("what was put and not deleted is read back by the next start, files included")
  func roundTrip() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let (accounts, ids) = try await temporary.accounts(signingUp: ["ana@example.org"])
    let storage = MemoryDocuments()
    let files = try MediaFiles(directory: temporary.directory + "/media/documents")
    let documents = try Documents(storage: storage, files: files, accounts: accounts)
    let (pdf, png) = (try MediaFixtures.bytes("result.pdf"), try MediaFixtures.bytes("python.png"))
    let kept = try await answer {
      documents.put(owner: ids[0], kind: "vaccination", day: "2026-05-05", bytes: pdf, $0)
    }.get()
    let gone = try await answer {
      documents.put(owner: ids[0], kind: "test-negative", day: "2026-11-01", bytes: png, $0)
    }.get()
    try await answer { documents.delete(owner: ids[0], id: gone.id, $0) }.get()
    #expect(storage.rows.withLock { Array($0.keys) } == [kept.id])
    let again = try Documents(storage: storage, files: files, accounts: accounts)
    let (read, bytes) = try again.get(owner: ids[0], id: kept.id).get()
    #expect(read == kept && bytes == pdf)
    #expect(again.list(owner: ids[0]) == [kept])
    #expect(try files.read(kept.file) == pdf)
    #expect(throws: (any Error).self) { try files.read(gone.file) }
  }

  @Test("a commit that fails answers notPersisted, and leaves neither the row nor the file")
  func failedCommit() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let (accounts, ids) = try await temporary.accounts(signingUp: ["ana@example.org"])
    let storage = MemoryDocuments()
    let directory = temporary.directory + "/media/documents"
    let documents = try Documents(
      storage: storage, files: try MediaFiles(directory: directory), accounts: accounts)
    storage.failing.store(true, ordering: .relaxed)
    let refused = await answer {
      documents.put(
        owner: ids[0], kind: "vaccination", day: "2026-05-05",
        bytes: try! MediaFixtures.bytes("result.pdf"), $0)
    }
    guard case .failure(.notPersisted) = refused else {
      Issue.record("not refused as not persisted: \(refused)")
      return
    }
    #expect(documents.list(owner: ids[0]).isEmpty)
    #expect(storage.rows.withLock { $0.isEmpty })
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }
}
