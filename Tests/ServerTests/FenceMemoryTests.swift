import CSpawn
import Commands
import Foundation
import Keyspace
import Logging
import SQLiteHookOutbox
import Synchronization
import Testing
import Webhooks

@testable import FenceCommands

/// Tile38's users saw memory grow to gigabytes with many fences that expire (#621, #769): here
/// 100,000 of them live and go over an hour of a simulated clock while members move through
/// them. Timed suite (run alone): it reads the bytes malloc has handed out.
@Suite("Fences: memory over an hour of expiries")
struct FenceMemoryTests {
  /// Bytes malloc has handed out and not had back (glibc's `mallinfo2`): what the fences hold,
  /// whatever the allocator keeps of the pages freed.
  static func allocated() -> Int { Int(mallinfo2().uordblks) }

  @Test(
    "100,000 fences with expiries from 1 to 60 minutes, 60,000 moves among them over an hour of simulated time: every fence goes when its time comes, the bytes allocated come back to within 2 MB of the baseline (from more than 20 MB above it), and fences.log is rewritten (and reads back) rather than growing"
  )
  func expiringFencesComeBack() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-fence-memory-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let now = Mutex<Int64>(1_800_000_000_000)
    let webhooks = try Webhooks(
      outbox: SQLiteHookOutbox(directory: directory, durable: false), rules: HookAddressRules(),
      logger: Logger(label: "test"))
    let fences = try KeyspaceFences(
      log: MemoryOnly(), keyspace: Keyspace(), hub: PubSubHub(), webhooks: webhooks,
      directory: directory, clock: { now.withLock { $0 } })
    var rng = SystemRandomNumberGenerator()
    let key = Array("fleet".utf8)

    /// Sets `count` fences in a 10° square (a place is in about one), each expiring 1 to 60
    /// minutes from now.
    func setFences(_ count: Int, prefix: String) async {
      let start = now.withLock { $0 }
      await withCheckedContinuation { (all: CheckedContinuation<Void, Never>) in
        let left = Mutex(count)
        for i in 0..<count {
          let area = FenceArea(description: [
            "circle": [
              "center": [
                Double.random(in: 0...10, using: &rng), Double.random(in: 45...55, using: &rng),
              ],
              "radius": Double.random(in: 50...2_000, using: &rng),
            ]
          ])!
          let fence = KeyspaceFences.Definition(
            name: "\(prefix)\(i)", db: 0, key: key, area: area, detect: [.enter, .exit],
            repeats: false, channel: Array("fence:\(prefix)\(i)".utf8),
            expires: start + Int64.random(in: 60_000...3_600_000, using: &rng))
          fences.set(fence) { _ in
            if left.withLock({ n in
              n -= 1
              return n == 0
            }) {
              all.resume()
            }
          }
        }
      }
    }

    func move(_ count: Int) {
      for _ in 0..<count {
        let member = Array("m\(Int.random(in: 0..<10_000, using: &rng))".utf8)
        _ = fences.append([
          .geoUpsert(
            db: 0, key: key, member: member, score: 0,
            longitude: Double.random(in: 0...10, using: &rng),
            latitude: Double.random(in: 45...55, using: &rng))
        ])
      }
    }

    /// An hour in minutes: the clock moves, the expired fences go, members move.
    func hour(movesAMinute: Int) async throws {
      for _ in 0..<61 {
        now.withLock { $0 += 60_000 }
        _ = fences.expire()
        move(movesAMinute)
      }
      // The fences' thread has evaluated every move.
      while fences.report().first(where: { $0.0 == "fence_backlog_writes" })?.1 != "0" {
        try await Task.sleep(for: .milliseconds(10))
      }
      try await Task.sleep(for: .milliseconds(200))
    }

    // A first, smaller round warms what stays (the allocator's arenas, caches, dictionaries'
    // first growth) before the baseline.
    await setFences(2_000, prefix: "warm")
    try await hour(movesAMinute: 100)
    #expect(fences.names().isEmpty)
    let baseline = Self.allocated()

    await setFences(100_000, prefix: "f")
    let full = Self.allocated()
    #expect(full - baseline > 20_000_000, "100,000 fences took only \(full - baseline) bytes")
    try await hour(movesAMinute: 1_000)
    #expect(fences.names().isEmpty)
    let after = Self.allocated()
    #expect(
      after - baseline < 2_000_000,
      "baseline \(baseline), with the fences \(full), after \(after)")
    let log = try FileManager.default.attributesOfItem(atPath: directory + "/fences.log")
    #expect((log[.size] as? Int ?? .max) < 1_000_000, "fences.log: \(log[.size] ?? "?") bytes")
    // The rewritten log reads back: a start finds no fence.
    let reopened = try KeyspaceFences(
      log: MemoryOnly(), keyspace: Keyspace(), hub: PubSubHub(), webhooks: webhooks,
      directory: directory, clock: { now.withLock { $0 } })
    #expect(reopened.names().isEmpty)
    webhooks.shutdown()
  }
}
