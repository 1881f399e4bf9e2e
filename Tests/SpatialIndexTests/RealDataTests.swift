import Datasets
import Foundation
import Geodesy
import SpatialIndex
import Testing

/// The index against brute force on real, clustered data: points around the GeoNames cities in
/// proportion to population, queries drawn the same way, then a round of moves.
///
/// Two halves with their own seeds, run in parallel: the brute force is the longest test here.
/// Environment: `CARDATLAS_ORACLE_QUERIES`, the queries before and after the moves (default 200,
/// split between the halves; the sanitized runs ask fewer, since the brute force is most of the
/// time there).
@Suite struct RealDataTests {
  static let queries =
    ProcessInfo.processInfo.environment["CARDATLAS_ORACLE_QUERIES"]
    .flatMap { Int($0) } ?? 200

  @Test(arguments: [0, 1]) func realCitiesAgreeWithBruteForce(half: UInt64) throws {
    let queryCount = Self.queries / 2
    let generator = try DatasetGenerator()
    var rng = SeededGenerator(seed: 41 + half)
    let items = generator.realistic(count: 30_000, seed: 41).enumerated().map { i, c in
      Item(
        id: ItemID(i), longitude: c.longitude, latitude: c.latitude,
        radius: Float(rng.range(0, 2000)), attributes: UInt32(rng.next() & 7))
    }
    let queries = generator.queryPoints(count: 200, seed: 41 + half)
    let index = try GeoIndex(items: items)
    var agreement = OracleAgreement(index: index, oracle: LinearScan(items: items))
    agreement.run(queries: queryCount, rng: &rng, near: queries)
    #expect(agreement.failures.isEmpty, "\(agreement.failures.prefix(3))")

    // Everyone in the densest city walks a little; some fly elsewhere.
    var after = items  // ids are 0..<count, so an item's index is its id
    for i in stride(from: 0, to: items.count, by: 3) {
      var item = items[i]
      let far = rng.unit() < 0.1
      let to =
        far
        ? queries[Int(rng.next() % UInt64(queries.count))]
        : TestData.near(
          Coordinate(longitude: item.longitude, latitude: item.latitude), spread: 0.003, &rng)
      item.longitude = to.longitude
      item.latitude = to.latitude
      try index.upsert(item)
      after[i] = item
    }
    var moved = OracleAgreement(index: index, oracle: LinearScan(items: after))
    moved.run(queries: queryCount, rng: &rng, near: queries)
    #expect(moved.failures.isEmpty, "\(moved.failures.prefix(3))")
  }
}
