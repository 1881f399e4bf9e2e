import Commands
import Foundation

/// The options the listing commands share: `[FROM t] [TO t] [COUNT n]`, times as seconds since
/// 1970 or ISO 8601 (`2026-11-25T20:00:00Z`).
struct Window {
  var from: Double?
  var to: Double?
  var count = 100

  static let maxCount = 10_000

  /// Reads the options from argument `start` on; `count` false refuses COUNT.
  static func parse(_ args: Arguments, from start: Int, count allowsCount: Bool = true)
    -> Result<Window, WindowError>
  {
    var window = Window()
    var i = start
    while i < args.count {
      guard i + 1 < args.count else { return .failure(.syntax) }
      if args.is(i, "from") || args.is(i, "to") {
        guard let t = time(args.string(i + 1)) else { return .failure(.time) }
        if args.is(i, "from") { window.from = t } else { window.to = t }
      } else if allowsCount, args.is(i, "count") {
        guard let n = args.saturatingInteger(i + 1), n > 0 else { return .failure(.count) }
        window.count = min(n, maxCount)
      } else {
        return .failure(.syntax)
      }
      i += 2
    }
    if let from = window.from, let to = window.to, from >= to { return .failure(.order) }
    return .success(window)
  }

  /// Seconds since 1970 (a number), or an ISO 8601 date and time with its zone.
  static func time(_ text: String) -> Double? {
    if let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e11 { return seconds }
    let formatter = ISO8601DateFormatter()
    if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
    formatter.formatOptions.insert(.withFractionalSeconds)
    return formatter.date(from: text)?.timeIntervalSince1970
  }
}

enum WindowError: Error {
  case syntax, time, count, order

  var message: String {
    switch self {
    case .syntax: RedisError.syntax
    case .time: "ERR invalid time: seconds since 1970 or ISO 8601 (2026-11-25T20:00:00Z)"
    case .count: "ERR COUNT must be > 0"
    case .order: "ERR FROM must be before TO"
    }
  }
}
