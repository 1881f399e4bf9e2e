import Datasets
import Foundation
import Geodesy
import SpatialIndex
import Synchronization
import Testing

@Suite struct MutationTests {
  /// Random inserts, small and large moves, attribute changes and removals, mirrored in a brute
  /// force scan. Sizes on both sides of the inline-rebuild limit exercise both rebuild paths.
  @Test(arguments: [(300, 4000, 11 as UInt64), (6000, 12000, 12)])
  func randomChangesKeepAgreeing(initial: Int, operations: Int, seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    let start = TestData.items(count: initial, seed: seed, withRadius: true)
    let index = try GeoIndex(items: start)
    var oracle = LinearScan(items: start)
    var nextID = ItemID(initial)
    var failures = [String]()
    for step in 1...operations {
      let roll = rng.unit()
      let existing =
        oracle.items.isEmpty ? nil : oracle.items[Int(rng.next() % UInt64(oracle.items.count))]
      if roll < 0.25 || existing == nil {
        let p = TestData.queryPoint(&rng)
        let item = Item(
          id: nextID, longitude: p.longitude, latitude: p.latitude,
          radius: Float(rng.range(0, 5000)), attributes: UInt32(rng.next() & 7))
        nextID += 1
        #expect(try index.upsert(item))
        oracle.upsert(item)
      } else if roll < 0.75, var item = existing {
        let far = rng.unit() < 0.3
        let p =
          far
          ? TestData.uniformPoint(&rng)
          : TestData.near(
            Coordinate(longitude: item.longitude, latitude: item.latitude), spread: 0.002, &rng)
        item.longitude = p.longitude
        item.latitude = p.latitude
        if rng.unit() < 0.2 { item.attributes = UInt32(rng.next() & 7) }
        if rng.unit() < 0.2 { item.radius = Float(rng.range(0, 100_000)) }
        #expect(try !index.upsert(item))
        oracle.upsert(item)
      } else if let item = existing {
        #expect(index.remove(id: item.id))
        #expect(!index.remove(id: item.id))
        oracle.remove(id: item.id)
      }
      if step % (operations / 8) == 0 {
        #expect(index.count == oracle.items.count)
        var agreement = OracleAgreement(index: index, oracle: oracle)
        agreement.run(queries: 40, rng: &rng)
        failures += agreement.failures.map { "after \(step) changes: \($0)" }
      }
    }
    index.rebuildNow()
    var agreement = OracleAgreement(index: index, oracle: oracle)
    agreement.run(queries: 100, rng: &rng)
    failures += agreement.failures.map { "after rebuild: \($0)" }
    for item in oracle.items { #expect(index.item(id: item.id) == item) }
    #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
  }

  /// Growing one insert at a time from nothing overflows and rebuilds the tree many times.
  @Test func growingFromEmpty() throws {
    let items = TestData.items(count: 9000, seed: 21)
    let index = try GeoIndex()
    for item in items { try index.upsert(item) }
    #expect(index.count == items.count)
    var rng = SeededGenerator(seed: 22)
    var agreement = OracleAgreement(index: index, oracle: LinearScan(items: items))
    agreement.run(queries: 100, rng: &rng)
    #expect(agreement.failures.isEmpty, "\(agreement.failures.prefix(3))")
    index.rebuildNow()
    var again = OracleAgreement(index: index, oracle: LinearScan(items: items))
    again.run(queries: 100, rng: &rng)
    #expect(again.failures.isEmpty, "\(again.failures.prefix(3))")
  }

  @Test func removingEverythingLeavesAnEmptyIndex() throws {
    let items = TestData.items(count: 5000, seed: 23)
    let index = try GeoIndex(items: items)
    for item in items { #expect(index.remove(id: item.id)) }
    #expect(index.count == 0)
    let s = index.makeSearcher()
    #expect(s.nearest(longitude: 0, latitude: 0, k: 3).isEmpty)
    #expect(
      s.clusters(
        in: GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90),
        zoom: 2
      ).isEmpty)
  }

  /// Writers move items while readers query. Readers check what must hold whatever the timing
  /// (sorted, within range, no duplicates); at the end the index must equal the writers' record.
  @Test func concurrentWritersAndReaders() throws {
    let n = 20_000
    let items = TestData.items(count: n, seed: 31)
    let index = try GeoIndex(items: items)
    let final = Mutex([ItemID: Item?]())  // nil: removed
    let problems = Mutex([String]())
    let group = DispatchGroup()
    for writer in 0..<2 {
      DispatchQueue.global().async(group: group) {
        var rng = SeededGenerator(seed: UInt64(100 + writer))
        var mine = [ItemID: Item?]()
        for _ in 0..<40_000 {
          // Writer w owns the ids congruent to w mod 2.
          let id = ItemID(Int(rng.next() % UInt64(n / 2)) * 2 + writer)
          var item = items[Int(id)]
          let p =
            rng.unit() < 0.1
            ? TestData.uniformPoint(&rng)
            : TestData.near(
              Coordinate(longitude: item.longitude, latitude: item.latitude), spread: 0.01, &rng)
          item.longitude = p.longitude
          item.latitude = p.latitude
          if rng.unit() < 0.05 {
            index.remove(id: id)
            mine[id] = .some(nil)
          } else {
            try! index.upsert(item)  // generated items are valid
            mine[id] = item
          }
        }
        final.withLock { f in for (k, v) in mine { f[k] = v } }
      }
    }
    for reader in 0..<2 {
      DispatchQueue.global().async(group: group) {
        var rng = SeededGenerator(seed: UInt64(200 + reader))
        let s = index.makeSearcher()
        var local = [String]()
        for _ in 0..<3000 {
          let q = TestData.queryPoint(&rng)
          let hits = s.nearest(
            longitude: q.longitude, latitude: q.latitude, k: 20, within: 2_000_000)
          if hits.count > 20
            || zip(hits, hits.dropFirst()).contains(where: { $0.distance > $1.distance })
            || hits.contains(where: { $0.distance > 2_000_000 })
          {
            local.append("nearest out of order or range at \(q)")
          }
          let inRadius = s.radius(longitude: q.longitude, latitude: q.latitude, radius: 50_000)
          if Set(inRadius.map(\.id)).count != inRadius.count
            || inRadius.contains(where: {
              Sphere.earth.distance(
                longitude: q.longitude, latitude: q.latitude, longitude: $0.longitude,
                latitude: $0.latitude) > 50_000
            })
          {
            local.append("radius duplicate or out of range at \(q)")
          }
          let box = TestData.box(&rng)
          if s.box(box).contains(where: {
            !box.contains(longitude: $0.longitude, latitude: $0.latitude)
          }) {
            local.append("box hit outside \(box)")
          }
        }
        problems.withLock { $0 += local }
      }
    }
    group.wait()
    #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(3) })")
    index.rebuildNow()
    // Ids no writer touched keep their start; touched ones end as the writer last left them.
    let touched = final.withLock { $0 }
    var survivors = [Item]()
    var mismatches = 0
    for item in items {
      let expected = touched[item.id] ?? item
      let got = index.item(id: item.id)
      if got != expected { mismatches += 1 }
      if let got { survivors.append(got) }
    }
    #expect(mismatches == 0)
    #expect(touched.values.contains(nil), "the writers removed items too")
    #expect(index.count == survivors.count)
    var rng = SeededGenerator(seed: 300)
    var agreement = OracleAgreement(index: index, oracle: LinearScan(items: survivors))
    agreement.run(queries: 60, rng: &rng)
    #expect(agreement.failures.isEmpty, "\(agreement.failures.prefix(3))")
  }
}
