import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Progress on stderr: a bar with rate and ETA redrawn in place on a terminal, or a plain line
/// every `interval` seconds otherwise (logs, CI).
final class Progress {
  private let total: Int
  private let start = Date()
  private let startRow: Int
  private let terminal: Bool
  private let interval: TimeInterval
  private var lastShown = Date.distantPast

  init(total: Int, startRow: Int, interval: TimeInterval) {
    self.total = total
    self.startRow = startRow
    self.interval = interval
    terminal = isatty(STDERR_FILENO) == 1
    if startRow > 0 { Self.write("resuming after row \(startRow)\n") }
  }

  func update(row: Int) {
    let now = Date()
    guard now.timeIntervalSince(lastShown) >= (terminal ? 0.2 : interval) else { return }
    lastShown = now
    Self.write(terminal ? "\r\u{1B}[K" + bar(row: row) : line(row: row) + "\n")
  }

  /// Clears the bar before the summary.
  func finish() {
    if terminal { Self.write("\r\u{1B}[K") }
  }

  /// Rows per second in this run.
  func rate(row: Int) -> Double {
    Double(row - startRow) / max(Date().timeIntervalSince(start), 1e-3)
  }

  private func eta(row: Int) -> String {
    let rate = self.rate(row: row)
    guard rate > 0, total > row else { return "--:--" }
    let seconds = Int(Double(total - row) / rate)
    return String(format: "%d:%02d", seconds / 60, seconds % 60)
  }

  private func bar(row: Int) -> String {
    let fraction = total > 0 ? min(1, Double(row) / Double(total)) : 0
    let filled = Int(fraction * 30)
    return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
      + "] \(Int(fraction * 100))% \(row)/\(total) rows, \(Int(rate(row: row))) rows/s, ETA "
      + eta(row: row)
  }

  private func line(row: Int) -> String {
    "progress: \(row)/\(total) rows, \(Int(rate(row: row))) rows/s, ETA \(eta(row: row))"
  }

  static func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
