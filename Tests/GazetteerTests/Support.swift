import Foundation
import Geodesy

@testable import Gazetteer

/// One gazetteer for the whole test run: loading takes a few seconds in a debug build.
enum Shared {
  static let loaded: Result<Gazetteer, GazetteerError> = Result { () throws(GazetteerError) in
    try Gazetteer()
  }

  static func gazetteer() throws -> Gazetteer { try loaded.get() }
}

/// SplitMix64: a seeded generator, so every run draws the same sample.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  // Own draws rather than the standard library's `random(in:using:)`, whose algorithm may
  // change between Swift versions (docs/DATA.md): the same sample on every toolchain.
  mutating func int(below n: Int) -> Int { Int(next() % UInt64(n)) }

  mutating func double(in range: ClosedRange<Double>) -> Double {
    range.lowerBound + Double(next() >> 11) * 0x1p-53 * (range.upperBound - range.lowerBound)
  }

  mutating func sign() -> Double { next() & 1 == 0 ? 1 : -1 }
}

func metres(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
  Sphere.earth.distance(longitude: lon1, latitude: lat1, longitude: lon2, latitude: lat2)
}

/// The repository's data folder, where the tests' sample files are.
let dataFolder = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("data")
