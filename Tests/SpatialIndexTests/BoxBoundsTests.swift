import Datasets
import Geodesy
import IndexIntrinsics
import Testing

@testable import SpatialIndex

/// The float test of 16 boxes must never cut a node that the exact Double bound keeps, nor
/// order one ahead of where its exact bound puts it.
@Suite struct BoxBoundsTests {
  func vector(_ c: Coordinate) -> UnitVector {
    UnitVector(longitude: c.longitude, latitude: c.latitude)
  }

  @Test func floatBoundsNeverExceedTheExactOnes() {
    var rng = SeededGenerator(seed: 77)
    let storage = UnsafeMutablePointer<Float>.allocate(capacity: 96)
    defer { storage.deallocate() }
    let boxes = BoxGroups(storage)
    var checked = 0
    for round in 0..<20_000 {
      // Boxes around points near a centre, from a single point to continent-sized; the query
      // near the same centre, at times exactly on a box's corner.
      let centre = TestData.uniformPoint(&rng)
      var corners: [(UnitVector, UnitVector)] = []
      for node in 0..<16 {
        let spread = [0, 1e-9, 1e-6, 1e-3, 0.1, 5][rng.nextInt(below: 6)]
        let a = vector(TestData.near(centre, spread: spread, &rng))
        let b = vector(TestData.near(centre, spread: spread, &rng))
        corners.append((a, b))
        let box = boxes[node]
        box[0] = down(min(a.x, b.x))
        box[1] = down(min(a.y, b.y))
        box[2] = down(min(a.z, b.z))
        box[3] = up(max(a.x, b.x))
        box[4] = up(max(a.y, b.y))
        box[5] = up(max(a.z, b.z))
      }
      if round % 4 == 0 { boxes.setEmpty(rng.nextInt(below: 16)) }
      let q =
        round % 3 == 0
        ? corners[rng.nextInt(below: 16)].0
        : vector(TestData.near(centre, spread: 0.01, &rng))
      let exact = (0..<16).map { boxes.lowerBound(node: $0, q) }
      let limit = exact.sorted()[rng.nextInt(below: 16)]
      var bounds = SIMD16<Float>()
      let lanes = boxes.bounds(group: 0, FloatQuery(q), limit: limit, into: &bounds)
      for j in 0..<16 {
        #expect(Double(bounds[j]) <= exact[j], "node \(j): \(bounds[j]) > \(exact[j])")
        if exact[j] <= limit && exact[j].isFinite {
          #expect(lanes & (1 << j) != 0, "node \(j) cut")
        }
        if exact[j].isInfinite { #expect(lanes & (1 << j) == 0) }
        checked += 1
      }
    }
    #expect(checked == 320_000)
  }

  #if arch(x86_64)
    /// On a CPU with AVX-512 the index takes the 16-lane version: it must give the bounds and
    /// lanes of the portable one to the bit, on random boxes, inverted ones, no limit.
    @Test(.enabled(if: has_avx512() != 0, "no AVX-512 on this CPU"))
    func everyVersionGivesTheSameBits() {
      var rng = SeededGenerator(seed: 78)
      let boxes = UnsafeMutablePointer<Float>.allocate(capacity: 96)
      defer { boxes.deallocate() }
      var portable = [Float](repeating: 0, count: 16)
      var wide = [Float](repeating: 0, count: 16)
      for round in 0..<50_000 {
        for i in 0..<96 { boxes[i] = Float(rng.nextDouble() * 2 - 1) }
        if round % 5 == 0 {
          let node = rng.nextInt(below: 16)
          for c in 0..<3 {
            boxes[c * 16 + node] = .infinity
            boxes[(c + 3) * 16 + node] = -.infinity
          }
        }
        let x = Float(rng.nextDouble() * 2 - 1)
        let y = Float(rng.nextDouble() * 2 - 1)
        let z = Float(rng.nextDouble() * 2 - 1)
        let limit = round % 7 == 0 ? Float.infinity : Float(rng.nextDouble() * 3)
        let a = box16_bounds_portable(
          boxes, x, y, z, FloatQuery.slack, FloatQuery.shrink, limit, &portable)
        let b = box16_bounds_avx512(
          boxes, x, y, z, FloatQuery.slack, FloatQuery.shrink, limit, &wide)
        #expect(a == b, "round \(round): lanes \(a) vs \(b)")
        #expect(portable.map(\.bitPattern) == wide.map(\.bitPattern), "round \(round)")
      }
    }
  #endif
}
