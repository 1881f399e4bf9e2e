import Accounts
import Durability
import Foundation
import MediaFiles
import Synchronization

/// Each account's private documents: vaccination records and test results as PDF, JPEG or PNG
/// files (recognised by their bytes, bounded in size). Only their owner lists or reads them;
/// they are in no search and no other account's reply. The bytes are in a `MediaStore` (durable
/// before the row naming them commits, removed only after the row's deletion has), the rows in
/// a store (`DocumentStorage`), and held in memory too. Knows nothing of RESP and no SQL.
public final class Documents: Sendable {
  public struct Configuration: Sendable {
    /// The largest file accepted, in bytes.
    public var maxBytes = 10 * 1024 * 1024
    public var maxPerAccount = 100

    public init() {}
  }

  struct State {
    var documents: [Int64: Document] = [:]
    var byOwner: [Int64: [Int64]] = [:]
    /// Puts under way per owner, counted against the limit before their files are written.
    var reserved: [Int64: Int] = [:]
    var nextId: Int64 = 1
  }

  public static let acceptedTypes: Set<MediaType> = [.pdf, .jpeg, .png]
  public typealias Done<T> = @Sendable (Result<T, DocumentError>) -> Void

  let storage: any DocumentStorage
  let files: any MediaStore
  public let configuration: Configuration
  let state = Mutex(State())

  /// Loads the rows, then removes the files none names (a crash between a file and its row).
  public init(
    storage: any DocumentStorage, files: any MediaStore, accounts: Accounts,
    configuration: Configuration = .init()
  ) throws {
    self.storage = storage
    self.configuration = configuration
    self.files = files
    let loaded = try storage.loadAll()
    state.withLock { s in
      for document in loaded { Self.add(document, &s) }
      s.nextId = (loaded.map(\.id).max() ?? 0) + 1
    }
    // Files a crash left without their row.
    files.removeUnnamed(keeping: Set(loaded.map(\.file)))
    accounts.addObserver(Observer(documents: self))
  }

  // MARK: Reading

  /// The owner's documents, the latest day first.
  public func list(owner: Int64) -> [Document] {
    state.withLock { s in (s.byOwner[owner] ?? []).compactMap { s.documents[$0] } }
      .sorted { ($0.day, $0.id) > ($1.day, $1.id) }
  }

  /// The document and its bytes, for its owner only. Reads the file: call it off the event
  /// loop.
  public func get(owner: Int64, id: Int64) -> Result<(Document, [UInt8]), DocumentError> {
    switch owned(owner, id) {
    case .failure(let error): return .failure(error)
    case .success(let document):
      do {
        return .success((document, try files.read(document.file)))
      } catch {
        return .failure(.notPersisted("\(error)"))
      }
    }
  }

  /// The size of the owner's document, 0 if the owner has none by that id: what `get` holds.
  public func size(owner: Int64, id: Int64) -> Int {
    (try? owned(owner, id).get().size) ?? 0
  }

  /// The day of the account's latest positive test on file, as the instant it starts (UTC).
  public func positiveTest(of account: Int64) -> Date? {
    list(owner: account).first { $0.kind == .testPositive }?.date
  }

  // MARK: Writing

  /// Stores a document: `kind` one of `Document.Kind` (any case), `day` a `yyyy-mm-dd` not after
  /// tomorrow (UTC), `bytes` a PDF, JPEG or PNG. Writes the file and waits for its fsync: call
  /// it off the event loop. Answers once the row is durable.
  public func put(
    owner: Int64, kind: String, day: String, bytes: [UInt8], _ done: @escaping Done<Document>
  ) {
    guard let kind = Document.Kind(rawValue: kind.uppercased()) else {
      let kinds = Document.Kind.allCases.map(\.rawValue).joined(separator: ", ")
      return done(.failure(.invalid(field: "kind", reason: "must be one of \(kinds)")))
    }
    guard let date = Document.parse(day) else {
      return done(.failure(.invalid(field: "date", reason: "must be a day, yyyy-mm-dd")))
    }
    guard date.timeIntervalSinceNow < 2 * 86_400 else {
      return done(.failure(.invalid(field: "date", reason: "is in the future")))
    }
    guard bytes.count <= configuration.maxBytes else {
      return done(.failure(.tooLarge(configuration.maxBytes)))
    }
    guard let type = MediaInspector.inspect(bytes)?.type, Self.acceptedTypes.contains(type) else {
      return done(.failure(.invalid(field: "bytes", reason: "must be a PDF, JPEG or PNG file")))
    }
    let limit = configuration.maxPerAccount
    let admitted = state.withLock { s -> Bool in
      guard (s.byOwner[owner]?.count ?? 0) + s.reserved[owner, default: 0] < limit else {
        return false
      }
      s.reserved[owner, default: 0] += 1
      return true
    }
    guard admitted else { return done(.failure(.limit(limit))) }
    let file: String
    do {
      file = try files.write(bytes, type: type)
    } catch {
      state.withLock { Self.release(owner, &$0) }
      return done(.failure(.notPersisted("\(error)")))
    }
    let made = state.withLock { s -> Document? in
      Self.release(owner, &s)
      let id: Int64
      if let ids = storage.documentIDs {
        guard let next = ids.next() else { return nil }
        id = next
      } else {
        id = s.nextId
      }
      let document = Document(
        id: id, ownerId: owner, kind: kind, day: day, type: type, size: bytes.count,
        createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded()),
        file: file)
      s.nextId = id + 1
      Self.add(document, &s)
      return document
    }
    guard let document = made else {
      files.remove(file)
      return done(.failure(.tryAgain("this node is waiting for new document ids")))
    }
    commit([storage.inserting(document, limit: limit)]) { [self] result in
      if case .failure = result {
        // No row names the file: it goes now (or, after a crash, at the next start).
        state.withLock { Self.remove(document, &$0) }
        files.remove(file)
      }
      done(result.map { document })
    }
  }

  /// Deletes the owner's document: the row, then once that is durable, the file.
  public func delete(owner: Int64, id: Int64, _ done: @escaping Done<Void>) {
    let removed = state.withLock { s -> Result<Document, DocumentError> in
      guard let document = s.documents[id] else { return .failure(.notFound) }
      guard document.ownerId == owner else { return .failure(.noPermission) }
      Self.remove(document, &s)
      return .success(document)
    }
    guard case .success(let document) = removed else {
      if case .failure(let error) = removed { done(.failure(error)) }
      return
    }
    commit([storage.deleting(id), AfterCommit { [files] in files.remove(document.file) }], done)
  }

  // MARK: Helpers

  private func owned(_ owner: Int64, _ id: Int64) -> Result<Document, DocumentError> {
    state.withLock { s in
      guard let document = s.documents[id] else { return .failure(.notFound) }
      return document.ownerId == owner ? .success(document) : .failure(.noPermission)
    }
  }

  /// Commits `writes`; a document another node's left no room for is the limit's error, a
  /// failure the store says wrote nothing `tryAgain` (retryable).
  private func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    storage.commit(writes) { [limit = configuration.maxPerAccount] result in
      done(
        result.mapError { error in
          switch error {
          case is DocumentsRaced: .limit(limit)
          case let failure as StoreFailure where failure.nothingWritten:
            .tryAgain("write not persisted, nothing written: \(error)")
          default: .notPersisted("\(error)")
          }
        })
    }
  }

  static func add(_ document: Document, _ s: inout State) {
    s.documents[document.id] = document
    s.byOwner[document.ownerId, default: []].append(document.id)
  }

  static func remove(_ document: Document, _ s: inout State) {
    s.documents[document.id] = nil
    s.byOwner[document.ownerId]?.removeAll { $0 == document.id }
    if s.byOwner[document.ownerId]?.isEmpty == true { s.byOwner[document.ownerId] = nil }
  }

  private static func release(_ owner: Int64, _ s: inout State) {
    s.reserved[owner, default: 1] -= 1
    if s.reserved[owner] == 0 { s.reserved[owner] = nil }
  }

  /// A deleted account's documents go with it: rows in its transaction, files once durable.
  private struct Observer: AccountObserver {
    let documents: Documents

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      let gone = documents.state.withLock { s -> [Document] in
        let owned = (s.byOwner[id] ?? []).compactMap { s.documents[$0] }
        for document in owned { Documents.remove(document, &s) }
        return owned
      }
      return [
        documents.storage.deletingAll(of: id),
        AfterCommit { [files = documents.files] in
          for document in gone { files.remove(document.file) }
        },
      ]
    }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}
