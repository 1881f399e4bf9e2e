import Foundation

/// Retry-After's two spellings, delay-seconds or an HTTP-date (RFC 9110 §10.2.3): geocoders'
/// 429s, webhook receivers' answers.
public enum RetryAfter {
  public static func seconds(_ value: String, now: Date = Date()) -> Double? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Double(trimmed), seconds.isFinite { return max(0, seconds) }
    guard let date = httpDate.date(from: trimmed) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }

  /// IMF-fixdate, the form servers must send ("Sun, 06 Nov 1994 08:49:37 GMT"). A new formatter
  /// each time: they are not documented thread-safe, and a 429 is rare.
  private static var httpDate: DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter
  }
}
