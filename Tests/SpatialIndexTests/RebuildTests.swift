import Datasets
import Foundation
import Geodesy
import SpatialIndex
import Testing

@Suite struct RebuildTests {
  /// Bulk loads: one writer inserts as fast as it can, so background rebuilds follow each other
  /// and the writes made during each are replayed into the next tree, where most find no slot
  /// and wait in the overflow. Once the writes stop, no further write comes to start another
  /// rebuild; the index must drain its overflow on its own. (Before, it did not in most loads:
  /// 8,981 and 15,733 items were left in the overflow for good.)
  /// Environment: `CARDATLAS_REBUILD_LOADS`, how many loads of 30,000 (default 4; the sanitized
  /// run takes 2: under AddressSanitizer the four were the last 90 s of its suites).
  @Test func overflowDrainsWithoutAnotherWrite() throws {
    let loads =
      ProcessInfo.processInfo.environment["CARDATLAS_REBUILD_LOADS"].flatMap(Int.init) ?? 4
    let items = TestData.items(count: 30_000 * max(1, loads), seed: 41)
    let index = try GeoIndex()
    var rng = SeededGenerator(seed: 42)
    var failures: [String] = []
    for (round, load) in stride(from: 0, to: items.count, by: 30_000).enumerated() {
      for item in items[load..<load + 30_000] { try index.upsert(item) }
      let loaded = index.statistics
      let deadline = Date().addingTimeInterval(30)
      var now = loaded
      while (now.overflow > 0 || now.rebuilding) && Date() < deadline {
        usleep(10_000)
        now = index.statistics
      }
      #expect(now.overflow == 0, "load \(round): \(loaded); 30 s later: \(now)")
      #expect(!now.rebuilding)
      #expect(now.count == load + 30_000)
      #expect(now.rebuilds >= loaded.rebuilds)
      let present = Array(items[..<(load + 30_000)])
      var agreement = OracleAgreement(index: index, oracle: LinearScan(items: present))
      agreement.run(queries: 30, rng: &rng)
      failures += agreement.failures.map { "load \(round): \($0)" }
    }
    for item in items { #expect(index.item(id: item.id) == item) }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }
}
