import Datasets
import Fences
import Foundation
import Geodesy
import Testing

@Suite("Fences against brute force")
struct FenceBookTests {
  /// Seeded, so that a failure names a reproducible case.
  typealias Seeded = SeededGenerator

  static func randomFence(_ rng: inout Seeded) -> OracleFence {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0..<3:
      let center = Coordinate(
        longitude: .random(in: -180...180, using: &rng),
        latitude: asin(.random(in: -1...1, using: &rng)) * 180 / .pi)
      return .circle(center: center, radius: exp(.random(in: log(10)...log(2e6), using: &rng)))
    case 3..<6:
      let lat = Double.random(in: -68...68, using: &rng)
      // Near the antimeridian one time in three.
      let lon =
        Bool.random(using: &rng)
        ? Double.random(in: -180...180, using: &rng)
        : (Bool.random(using: &rng) ? 1 : -1) * .random(in: 170...180, using: &rng)
      let size = exp(Double.random(in: log(0.01)...log(20), using: &rng))
      let n = Int.random(in: 6...20, using: &rng)
      let angles = (0..<n).map {
        2 * Double.pi * (Double($0) + .random(in: 0..<0.8, using: &rng)) / Double(n)
      }
      let radii = angles.map { _ in size * .random(in: 0.5...1, using: &rng) }
      let hole: [Double]? =
        Bool.random(using: &rng)
        ? angles.map { _ in size * .random(in: 0.05...0.12, using: &rng) } : nil
      return .star(
        center: Coordinate(longitude: lon, latitude: lat), angles: angles, radii: radii,
        hole: hole)
    case 6..<8:
      let north = Bool.random(using: &rng)
      let n = Int.random(in: 8...24, using: &rng)
      let xs = (0..<n).map {
        -180 + 360 * (Double($0) + .random(in: 0..<0.8, using: &rng)) / Double(n)
      }
      let ys = xs.map { _ in (north ? 1.0 : -1.0) * .random(in: 55...80, using: &rng) }
      return .polar(longitudes: xs, latitudes: ys, north: north)
    default:
      let west = Double.random(in: -180...180, using: &rng)
      let width = exp(Double.random(in: log(0.01)...log(300), using: &rng))
      let south = Double.random(in: -89...88, using: &rng)
      let north = min(90, south + exp(.random(in: log(0.01)...log(60), using: &rng)))
      return .box(
        west: west, south: south, east: OracleFence.wrapped(west + width), north: north)
    }
  }

  /// A point near a fence (so that moves go in and out), or anywhere.
  static func start(near fences: [OracleFence], _ rng: inout Seeded) -> Coordinate {
    guard Int.random(in: 0..<5, using: &rng) > 0 else {
      return Coordinate(
        longitude: .random(in: -180...180, using: &rng),
        latitude: asin(.random(in: -1...1, using: &rng)) * 180 / .pi)
    }
    let reach = fences.randomElement(using: &rng)!.shape.reach
    return OracleFence.sphere.destination(
      longitude: reach.center.longitude, latitude: reach.center.latitude,
      bearing: .random(in: 0..<360, using: &rng),
      distance: reach.radius * .random(in: 0...1.3, using: &rng))
  }

  static func step(from p: Coordinate, _ rng: inout Seeded) -> Coordinate {
    let distance = exp(Double.random(in: log(1)...log(3e6), using: &rng))
    return OracleFence.sphere.destination(
      longitude: p.longitude, latitude: p.latitude, bearing: .random(in: 0..<360, using: &rng),
      distance: distance)
  }

  @Test(
    "random circles, star polygons with holes (some across the antimeridian), rings round a pole and boxes, and random moves, removals and returns of random objects: every move's events equal the oracle's, in order, with fences added (seeded with the objects inside) and removed on the way"
  )
  func randomMovesMatchTheOracle() throws {
    for seed in UInt64(1)...2 {
      var rng = Seeded(seed: seed)
      let book = FenceBook()
      var fences: [FenceBook.FenceID: (fence: OracleFence, detect: FenceDetect, repeats: Bool)] =
        [:]
      var inside: [FenceBook.FenceID: Set<UInt64>] = [:]
      func addFence(_ positions: [UInt64: Coordinate]) {
        let fence = Self.randomFence(&rng)
        let detect = FenceDetect(rawValue: UInt8.random(in: 1...31, using: &rng))
        let repeats = Bool.random(using: &rng)
        let id = book.add(
          fence.shape, detect: detect, repeats: repeats,
          present: positions.map { ($0.key, $0.value) })
        fences[id] = (fence, detect, repeats)
        inside[id] = Set(positions.filter { fence.contains($0.value) }.keys)
      }
      for _ in 0..<150 { addFence([:]) }
      let shapes = fences.keys.sorted().map { fences[$0]!.fence }
      var positions: [UInt64: Coordinate] = [:]
      for object in UInt64(0)..<400 { positions[object] = Self.start(near: shapes, &rng) }
      // Objects placed before any move: each enters what holds it.
      for (object, at) in positions { _ = book.move(object, from: nil, to: at) }
      for (id, entry) in fences {
        inside[id] = Set(positions.filter { entry.fence.contains($0.value) }.keys)
      }
      var compared = 0
      var kinds: [FenceEvent.Kind: Int] = [:]
      for round in 0..<5000 {
        if round % 500 == 250 {
          let gone = fences.keys.sorted().randomElement(using: &rng)!
          #expect(book.remove(gone))
          fences[gone] = nil
          inside[gone] = nil
          addFence(positions)
        }
        let object = UInt64.random(in: 0..<400, using: &rng)
        let before = positions[object]
        let after: Coordinate? =
          Int.random(in: 0..<40, using: &rng) == 0
          ? nil
          : before.map { Self.step(from: $0, &rng) } ?? Self.start(near: shapes, &rng)
        var expected: [FenceEvent] = []
        for (id, entry) in fences {
          let was = inside[id]!.contains(object)
          let now = after.map { entry.fence.contains($0) } ?? false
          let d = entry.detect
          if now, !was {
            if d.contains(.enter) { expected.append(FenceEvent(id, object, .enter)) }
            if d.contains(.inside) { expected.append(FenceEvent(id, object, .inside)) }
          } else if now, was, entry.repeats, d.contains(.inside) {
            expected.append(FenceEvent(id, object, .inside))
          } else if !now, was {
            if d.contains(.exit) { expected.append(FenceEvent(id, object, .exit)) }
            if d.contains(.outside) { expected.append(FenceEvent(id, object, .outside)) }
          } else if !now, !was, let after {
            let reach = entry.fence.shape.reach
            if entry.repeats, d.contains(.outside),
              OracleFence.sphere.distance(reach.center, after) <= reach.radius
            {
              expected.append(FenceEvent(id, object, .outside))
            }
            if d.contains(.cross), let before, entry.fence.crossed(from: before, to: after) {
              expected.append(FenceEvent(id, object, .cross))
            }
          }
          if now { inside[id]!.insert(object) } else { inside[id]!.remove(object) }
        }
        expected.sort()
        let got = book.move(object, from: before, to: after)
        #expect(
          got == expected,
          "seed \(seed) round \(round): object \(object) from \(String(describing: before)) to \(String(describing: after)): got \(got.map { "\($0.fence) \($0.kind.name)" }), expected \(expected.map { "\($0.fence) \($0.kind.name)" })"
        )
        if got != expected { return }
        compared += 1
        for event in got { kinds[event.kind, default: 0] += 1 }
        positions[object] = after
      }
      for (id, members) in inside { #expect(book.members(of: id) == members, "fence \(id)") }
      print(
        "seed \(seed): \(compared) moves, events \(kinds.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.name) \($0.value)" })"
      )
      for kind in FenceEvent.Kind.allCases {
        #expect(kinds[kind, default: 0] > 0, "seed \(seed): some \(kind.name) events")
      }
    }
  }
}
