import Foundation

/// For tests whose counts are per UTC day: if the next UTC midnight is within `margin` seconds,
/// waits until it has passed, so the test runs within one day.
public func awayFromUTCMidnight(margin: TimeInterval = 120) async throws {
  let intoDay = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
  let left = 86_400 - intoDay
  guard left < margin else { return }
  try await Task.sleep(nanoseconds: UInt64((left + 1) * 1e9))
}
