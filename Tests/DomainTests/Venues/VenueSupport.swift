import Cards
import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Venues

/// The time a test's venues read: set by the test, so that histories (touching visits, open
/// ones) are replayed exactly.
final class TestClock: Sendable {
  private let value = Mutex(1_800_000_000.0)
  var seconds: Double {
    get { value.withLock { $0 } }
    set { value.withLock { $0 = newValue } }
  }
  func advance(_ by: Double) { value.withLock { $0 += by } }
}

/// Positive test results on file, as the documents module would answer them.
final class TestResults: Sendable {
  private let positive = Mutex<[Int64: Date]>([:])
  func set(_ account: Int, _ date: Date?) { positive.withLock { $0[Int64(account)] = date } }
  func of(_ account: Int64) -> Date? { positive.withLock { $0[account] } }
}

extension TestDaemon {
  /// A server with the venues module on the test's clock and test results.
  static func venues(
    clock: TestClock = TestClock(), results: TestResults = TestResults(),
    distance: Double = 200, cards: (inout Cards.Configuration) -> Void = { _ in }
  ) async throws -> TestDaemon {
    var configuration = Venues.Configuration()
    configuration.clock = { Date(timeIntervalSince1970: clock.seconds) }
    configuration.positiveTest = { results.of($0) }
    configuration.checkInDistance = distance
    // Tests make many venues from one account; VenueTests checks the limit.
    configuration.createsPerHour = 0
    return try await TestDaemon(cards: cards, domain: { $0.venues = configuration })
  }
}

extension RESPConnection {
  /// An array reply of JSON objects, decoded.
  func objects(_ arguments: String...) throws -> [[String: Any]] {
    guard case .array(let items) = try command(arguments).value else {
      throw RESPConnection.Failed(description: "not an array: \(arguments)")
    }
    return try items.map { item in
      guard case .bulkString(let b) = item,
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any]
      else { throw RESPConnection.Failed(description: "not a JSON object") }
      return object
    }
  }

  /// A new venue's id.
  func venue(_ name: String, _ lon: Double, _ lat: Double) throws -> String {
    let venue = try object("VENUE.CREATE", #"{"name":"\#(name)","lon":\#(lon),"lat":\#(lat)}"#)
    guard let id = venue["id"] as? Int else {
      throw RESPConnection.Failed(description: "VENUE.CREATE \(name)")
    }
    return "\(id)"
  }
}

/// Seconds since 1970 of an ISO 8601 reply time.
func seconds(_ value: Any?) -> Double? {
  (value as? String).flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 }
}
