import Foundation
import GRDB
import Keyspace
import Synchronization
import Testing

@testable import KeyspaceStore
@testable import Store

/// The keyspace journal: its records read back as written, what a crash leaves in it replayed
/// into the tables at the next open (a torn record dropped), and nothing left in it after a
/// clean close.
@Suite("Keyspace journal")
struct KeyspaceJournalTests {
  /// Random changes of every kind, keys and members of any bytes (empty ones too).
  static func randomChanges(_ count: Int, seed: UInt64) -> [Change] {
    var state = seed
    func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 11
    }
    func bytes() -> Bytes { (0..<Int(next() % 12)).map { _ in UInt8(truncatingIfNeeded: next()) } }
    func double() -> Double { Double(bitPattern: next() << 11 | next() % 2048) }
    return (0..<count).map { _ in
      let db = Int(next() % 16)
      switch next() % 6 {
      case 0:
        return .geoUpsert(
          db: db, key: bytes(), member: bytes(), score: double(), longitude: double(),
          latitude: double())
      case 1: return .geoRemove(db: db, key: bytes(), member: bytes())
      case 2: return .setString(db: db, key: bytes(), value: bytes())
      case 3: return .deleteKey(db: db, key: bytes())
      case 4: return .flushDatabase(db: db)
      default: return .flushAll
      }
    }
  }

  /// The journal's segments in `directory`, and their sizes.
  static func segments(_ directory: String) throws -> [String: Int] {
    var sizes: [String: Int] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory)
    where name.hasPrefix(KeyspaceJournal.filePrefix) {
      sizes[name] =
        try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int
    }
    return sizes
  }

  @Test(
    "past its size a segment is closed and the next opened, never waiting; closed segments go once the tables hold them"
  )
  func segmentsRotate() async throws {
    try await withTemporaryDirectory { directory in
      let store = try openStore(directory, fsync: .batch)
      var limits = KeyspaceJournal.Limits()
      limits.segmentBytes = 2_000
      let journal = try KeyspaceJournal(
        store: store, fsync: .batch, limits: limits, logger: quietLogger)
      for i in 0..<300 {
        try await journal.commit(changes: [
          .geoUpsert(
            db: 0, key: Array("pts".utf8), member: Array("m\(i)".utf8), score: 1,
            longitude: 2, latitude: 3)
        ])
      }
      journal.drain()
      let left = try Self.segments(directory)
      #expect(left.count <= 2, "\(left)")
      #expect(left.keys.allSatisfy { Int($0.dropFirst(KeyspaceJournal.filePrefix.count))! > 3 })
      #expect(try store.loadAll().count == 300)
      journal.close()
      store.close()
    }
  }

  @Test("every kind of change reads back as written, bit for bit (NaN payloads and -0 too)")
  func roundTrip() {
    for seed in 1...20 as ClosedRange<UInt64> {
      let changes = Self.randomChanges(500, seed: seed)
      var payload: [UInt8] = []
      for change in changes { ChangeCoding.append(change, to: &payload) }
      let (payloads, length) = JournalFormat.records(JournalFormat.record(payload))
      #expect(payloads.count == 1 && length == payload.count + JournalFormat.headerBytes)
      let read = payloads.first.flatMap(ChangeCoding.changes)
      // Compared by encoding: NaN != NaN, but their bits must survive.
      var again: [UInt8] = []
      for change in read ?? [] { ChangeCoding.append(change, to: &again) }
      #expect(read?.count == changes.count && again == payload, "seed \(seed)")
    }
  }

  @Test(
    "a record cut short or with a bad checksum ends the journal; the whole ones before it stand")
  func tornTail() {
    let records = (1...3).map { i -> [UInt8] in
      var payload: [UInt8] = []
      ChangeCoding.append(.setString(db: 0, key: Array("k\(i)".utf8), value: [1]), to: &payload)
      return JournalFormat.record(payload)
    }
    let whole = records.joined()
    for cut in 1..<records[2].count {
      let (payloads, length) = JournalFormat.records(Array(whole.dropLast(cut)))
      #expect(payloads.count == 2 && length == records[0].count + records[1].count)
    }
    var flipped = Array(whole)
    flipped[records[0].count + JournalFormat.headerBytes] ^= 0x40
    #expect(JournalFormat.records(flipped).payloads.count == 1)
  }

  @Test(
    "at open, what a crash left (records never applied, then a torn one) reaches the tables before they are read, and the journal is emptied"
  )
  func replayAtOpen() async throws {
    try await withTemporaryDirectory { directory in
      let store = try openStore(directory)
      store.close()
      // The first segment: three members added. The second: one removed, then a record cut
      // short by the crash.
      var first: [UInt8] = []
      for member in ["a", "b", "c"] {
        var payload: [UInt8] = []
        ChangeCoding.append(
          .geoUpsert(
            db: 0, key: Array("pts".utf8), member: Array(member.utf8), score: 1, longitude: 2,
            latitude: 3), to: &payload)
        first += JournalFormat.record(payload)
      }
      var removal: [UInt8] = []
      ChangeCoding.append(.geoRemove(db: 0, key: Array("pts".utf8), member: [98]), to: &removal)
      var torn: [UInt8] = []
      ChangeCoding.append(.flushAll, to: &torn)
      let second = JournalFormat.record(removal) + JournalFormat.record(torn).dropLast(1)
      try Data(first).write(to: URL(fileURLWithPath: directory + "/keyspace.journal.1"))
      try Data(second).write(to: URL(fileURLWithPath: directory + "/keyspace.journal.2"))
      let reopened = try openStore(directory)
      let opened = try KeyspaceJournal(store: reopened, fsync: .always, logger: quietLogger)
      let members = try reopened.loadAll().compactMap { change -> String? in
        guard case .geoUpsert(_, _, let member, _, _, _) = change else { return nil }
        return String(decoding: member, as: UTF8.self)
      }
      #expect(members.sorted() == ["a", "c"])
      #expect(try Self.segments(directory) == ["keyspace.journal.3": 0], "replayed, then deleted")
      opened.close()
      reopened.close()
    }
  }

  @Test(
    "acknowledged once in the journal; drain and close wait for the tables, and a clean close leaves the journal empty"
  )
  func commitDrainClose() async throws {
    try await withTemporaryDirectory { directory in
      let store = try openStore(directory)
      let journal = try KeyspaceJournal(store: store, fsync: .always, logger: quietLogger)
      let changes = (0..<2_000).map { i in
        Change.geoUpsert(
          db: 0, key: Array("pts".utf8), member: Array("m\(i)".utf8), score: Double(i),
          longitude: 1, latitude: 2)
      }
      for chunk in stride(from: 0, to: changes.count, by: 100) {
        try await journal.commit(changes: Array(changes[chunk..<chunk + 100]))
      }
      journal.drain()
      #expect(journal.unappliedBytes == 0)
      #expect(try store.loadAll().count == 2_000)
      try await journal.commit(changes: [.setString(db: 1, key: [1], value: [2])])
      journal.close()
      #expect(try Self.segments(directory).isEmpty, "a clean close leaves no segment")
      #expect(try store.loadAll().count == 2_001)
      await #expect(throws: StoreError.closed) {
        try await journal.commit(changes: [.flushAll])
      }
      store.close()
    }
  }

  @Test(
    "under a write flood the tables lag by at most the bound (plus what is queued), every commit is acknowledged, and all of it reaches the tables"
  )
  func floodStaysBounded() async throws {
    try await withTemporaryDirectory { directory in
      let store = try openStore(directory, fsync: .batch)
      var limits = KeyspaceJournal.Limits()
      limits.maximumUnapplied = 256 << 10
      let journal = try KeyspaceJournal(
        store: store, fsync: .batch, limits: limits, logger: quietLogger)
      let writers = 32
      let commits = 60
      let members = 50
      // One commit's record: 50 members of ~45 bytes of changes each.
      let record = JournalFormat.record(
        (0..<members).reduce(into: [UInt8]()) { out, i in
          ChangeCoding.append(
            .geoUpsert(
              db: 0, key: Array("flood-00".utf8), member: Array("m00-00-\(i)".utf8), score: 1,
              longitude: 1, latitude: 1), to: &out)
        }
      ).count
      let peak = Peak()
      let sampler = Task {
        while !Task.isCancelled {
          let now = journal.unappliedBytes
          peak.bytes.withLock { $0 = max($0, now) }
          try? await Task.sleep(for: .milliseconds(1))
        }
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for w in 0..<writers {
          group.addTask {
            for c in 0..<commits {
              let changes = (0..<members).map { i in
                Change.geoUpsert(
                  db: 0, key: Array("flood-\(w % 10)\(w / 10)".utf8),
                  member: Array("m\(c % 10)\(c / 10)-\(w % 10)\(w / 10)-\(i)".utf8), score: 1,
                  longitude: 1, latitude: 1)
              }
              try await journal.commit(changes: changes)
            }
          }
        }
        try await group.waitForAll()
      }
      sampler.cancel()
      let worst = peak.bytes.withLock { $0 }
      // The writer waits past the bound, then writes everything queued meanwhile: at most one
      // commit per writer.
      #expect(worst <= limits.maximumUnapplied + writers * record, "peak \(worst) bytes")
      #expect(worst > limits.maximumUnapplied / 2, "the flood reached the bound (\(worst))")
      journal.drain()
      #expect(try store.loadAll().count == writers * commits * members)
      journal.close()
      store.close()
    }
  }
}

/// The most bytes a sampler saw.
private final class Peak: Sendable {
  let bytes = Mutex(0)
}
