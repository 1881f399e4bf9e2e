import ArgumentParser
import Datasets
import Fences
import Foundation
import Geodesy

struct BenchFences: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fences",
    abstract: "Time geofence evaluation in process: position updates a second.",
    discussion: """
      Builds a fence book of --fences fences around real cities (half circles, half \
      --vertices-vertex star polygons, 50 m to 5 km across, detecting every event), places \
      --objects objects drawn like the map's points, then moves objects chosen at random by \
      10 to 200 m, --moves in all, and reports the moves a second, the events they made, and \
      the process's RSS.
      """)

  @Option(help: "Fences.") var fences = 100_000
  @Option(help: "Vertices of each polygon fence.") var vertices = 20
  @Option(help: "Objects.") var objects = 1_000_000
  @Option(help: "Moves timed.") var moves = 2_000_000
  @Option(help: "Seed of the places and moves.") var seed: UInt64 = 1

  func run() async throws {
    let generator = try DatasetGenerator()
    let sphere = Sphere.earth
    var rng = SeededGenerator(seed: seed)
    let book = FenceBook()
    let started = ContinuousClock.now
    for (i, center) in generator.realistic(count: fences, seed: seed &+ 1).enumerated() {
      let size = exp(Double.random(in: log(50)...log(5000), using: &rng))
      let shape: FenceShape
      if i % 2 == 0 {
        shape = FenceShape.circle(center, radius: size / 2)!
      } else {
        let ring = (0..<vertices).map { k -> Coordinate in
          let bearing = 360 * (Double(k) + .random(in: 0..<0.8, using: &rng)) / Double(vertices)
          return sphere.destination(
            longitude: center.longitude, latitude: center.latitude, bearing: bearing,
            distance: size / 2 * .random(in: 0.5...1, using: &rng))
        }
        shape = FenceShape.polygons([[ring]])!
      }
      _ = book.add(shape, detect: .all, repeats: false)
    }
    book.compact()
    let built = ContinuousClock.now - started
    var positions = generator.realistic(count: objects, seed: seed &+ 2)
    var events = 0
    for (object, point) in positions.enumerated() {
      events += book.move(UInt64(object), from: nil, to: point).count
    }
    let placed = ContinuousClock.now - started - built
    let chosen = (0..<moves).map { _ in Int.random(in: 0..<objects, using: &rng) }
    let steps = (0..<moves).map { _ in
      (Double.random(in: 10...200, using: &rng), Double.random(in: 0..<360, using: &rng))
    }
    var kinds: [FenceEvent.Kind: Int] = [:]
    let clock = ContinuousClock.now
    for (object, (distance, bearing)) in zip(chosen, steps) {
      let before = positions[object]
      let after = sphere.destination(
        longitude: before.longitude, latitude: before.latitude, bearing: bearing,
        distance: distance)
      for event in book.move(UInt64(object), from: before, to: after) {
        kinds[event.kind, default: 0] += 1
      }
      positions[object] = after
    }
    let elapsed = ContinuousClock.now - clock
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
      "\(fences) fences built in \(built); \(objects) objects placed in \(placed) (\(events) events)"
    )
    print(
      "\(moves) moves in \(String(format: "%.2f", seconds)) s: "
        + "\(String(format: "%.0f", Double(moves) / seconds)) updates/s; events "
        + FenceEvent.Kind.allCases.map { "\($0.name) \(kinds[$0, default: 0])" }.joined(
          separator: ", "))
    print("RSS \(Self.residentMegabytes()) MB")
  }

  static func residentMegabytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kb / 1024
  }
}
