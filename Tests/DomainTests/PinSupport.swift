import DaemonTestSupport
import Foundation
import Pins
import RESP
import RedisTestSupport

extension TestDaemon {
  /// A server with the pins module. Its openers may be anywhere at any moment, as often as they
  /// like (the tests open pins all over the world); `PinOpenAttackTests` checks those limits.
  convenience init(pins configure: (inout Pins.Configuration) -> Void) async throws {
    var configuration = Pins.Configuration()
    configuration.maximumOpenerSpeed = .infinity
    configuration.opensPerHour = 0
    configuration.addsPerHour = 0
    configure(&configuration)
    try await self.init(domain: { $0.pins = configuration })
  }

  /// The photo files stored.
  func photoFiles(reaching count: Int? = nil) async throws -> [String] {
    try await mediaFiles("pins", reaching: count)
  }
}

extension RESPConnection {
  func photo(_ id: Int, _ bytes: [UInt8]) throws -> Reply {
    try command(bytes: [Array("PIN.PHOTO".utf8), Array("\(id)".utf8), bytes])
  }

  /// The hits' ids of a PIN.AT, PIN.TOP or PIN.SEARCH reply.
  func hitIds(_ arguments: String...) throws -> [Int] {
    guard case .array(let rows) = try command(arguments).value else {
      throw RESPConnection.Failed(description: "not an array: \(arguments)")
    }
    return rows.compactMap { row -> Int? in
      guard case .array(let fields) = row, case .integer(let id)? = fields.first else { return nil }
      return id
    }
  }

  /// A new pin's id.
  func pin(
    _ lon: Double, _ lat: Double, _ radius: Double, _ unit: String = "m", _ json: String = "{}"
  ) throws -> Int {
    let pin = try object("PIN.ADD", "\(lon)", "\(lat)", "\(radius)", unit, json)
    guard let id = pin["id"] as? Int else { throw RESPConnection.Failed(description: "PIN.ADD") }
    return id
  }
}

/// The great-circle distance the server measures from a point to a pin's centre: haversine on
/// the IUGG sphere, the operations in the same order.
func pinDistance(from point: (Double, Double), to centre: (Double, Double)) -> Double {
  let lat1 = point.1 * (Double.pi / 180.0)
  let lon1 = point.0 * (Double.pi / 180.0)
  let lat2 = centre.1 * (Double.pi / 180.0)
  let u = sin((lat2 - lat1) / 2)
  let v = sin((centre.0 * (Double.pi / 180.0) - lon1) / 2)
  let a = u * u + cos(lat1) * cos(lat2) * v * v
  return 2.0 * 6_371_008.8 * asin(min(1.0, sqrt(a)))
}
