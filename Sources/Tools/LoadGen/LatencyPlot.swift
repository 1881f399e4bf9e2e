import Foundation
import Histogram

/// A latency-by-percentile plot as a standalone SVG file, drawn as HdrHistogram's plotter draws
/// one: the x axis is logarithmic in 1 / (1 − percentile), so 0 %, 90 %, 99 %, 99.9 %, … are
/// evenly spaced and the tail gets the room; the y axis is linear latency. One path per series,
/// with axis labels and a legend; nothing else in the file is a path.
public enum LatencyPlot {
  public struct Series: Sendable {
    public var label: String
    /// Latencies in nanoseconds.
    public var histogram: Histogram<UInt64>

    public init(label: String, histogram: Histogram<UInt64>) {
      self.label = label
      self.histogram = histogram
    }
  }

  static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

  public static func svg(title: String, series: [Series]) -> String {
    let width = 900.0
    let height = 540.0
    let left = 80.0
    let right = 30.0
    let top = 50.0
    let bottom = 70.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom

    // The x axis reaches the decade the largest run can resolve: 99.9 % for a thousand requests.
    let largest = series.map(\.histogram.totalCount).max() ?? 0
    let decades = Swift.min(
      7, Swift.max(2, Int(Foundation.log10(Double(Swift.max(1, largest))).rounded(.up))))
    // The y axis in microseconds or milliseconds, up to a round number past the slowest reply.
    let slowest = Double(series.map(\.histogram.maxRecorded).max() ?? 0) / 1000
    let inMilliseconds = slowest >= 10_000
    let unit = inMilliseconds ? "ms" : "µs"
    let scale = inMilliseconds ? 1_000_000.0 : 1000.0
    let step = niceStep(Swift.max(slowest * 1000 / scale, 1e-3) / 6)
    let yMax = Swift.max(step, (slowest * 1000 / scale / step).rounded(.up) * step)

    func x(_ percentile: Double) -> Double {
      let level =
        percentile >= 100
        ? Double(decades) : Swift.min(Double(decades), Foundation.log10(1 / (1 - percentile / 100)))
      return left + plotWidth * level / Double(decades)
    }
    func y(_ value: Double) -> Double { top + plotHeight * (1 - value / yMax) }

    var svg = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
      viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" \
      font-size="12">
      <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="white"/>
      <text x="\(n(width / 2))" y="28" text-anchor="middle" font-size="15">\(escape(title))</text>

      """
    // Grid and tick labels.
    for decade in 0...decades {
      let gx = left + plotWidth * Double(decade) / Double(decades)
      svg += line(gx, top, gx, top + plotHeight, colour: "#dddddd")
      svg += text(gx, top + plotHeight + 18, percentLabel(decade), anchor: "middle")
    }
    var tick = 0.0
    while tick <= yMax * (1 + 1e-9) {
      let gy = y(tick)
      svg += line(left, gy, left + plotWidth, gy, colour: "#dddddd")
      svg += text(left - 8, gy + 4, trimmed(tick), anchor: "end")
      tick += step
    }
    svg += """
      <rect x="\(n(left))" y="\(n(top))" width="\(n(plotWidth))" height="\(n(plotHeight))" \
      fill="none" stroke="#444444"/>
      <text x="\(n(left + plotWidth / 2))" y="\(n(height - 22))" text-anchor="middle">\
      Percentile (log scale of 1 / (1 − percentile))</text>
      <text x="22" y="\(n(top + plotHeight / 2))" text-anchor="middle" \
      transform="rotate(-90 22 \(n(top + plotHeight / 2)))">Latency (\(unit))</text>

      """
    // One path per series.
    for (index, entry) in series.enumerated() {
      let histogram = entry.histogram
      var points: [(Double, Double)] = []
      if histogram.totalCount > 0 {
        for step in histogram.percentiles(ticksPerHalfDistance: 5) {
          let value = Double(Swift.min(step.value, histogram.maxRecorded)) / scale
          points.append((x(step.percentileLevelIteratedTo), y(value)))
        }
        points.append((x(100), y(Double(histogram.maxRecorded) / scale)))
      } else {
        points.append((x(0), y(0)))
      }
      let d = points.enumerated().map { i, p in (i == 0 ? "M" : "L") + "\(n(p.0)) \(n(p.1))" }
        .joined(separator: " ")
      let colour = colours[index % colours.count]
      svg +=
        "<path d=\"\(d)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" "
        + "stroke-linejoin=\"round\"><title>\(escape(entry.label))</title></path>\n"
    }
    // Legend, top left inside the plot.
    let legendHeight = 10 + 20 * Double(series.count)
    let legendWidth = 20 + 7 * Double(series.map(\.label.count).max() ?? 0) + 40
    svg += """
      <rect x="\(n(left + 12))" y="\(n(top + 12))" width="\(n(legendWidth))" \
      height="\(n(legendHeight))" fill="white" fill-opacity="0.9" stroke="#999999"/>

      """
    for (index, entry) in series.enumerated() {
      let ly = top + 12 + 17 + 20 * Double(index)
      let colour = colours[index % colours.count]
      svg += line(left + 22, ly - 4, left + 52, ly - 4, colour: colour, width: 3)
      svg += text(left + 60, ly, entry.label, anchor: "start")
    }
    svg += "</svg>\n"
    return svg
  }

  /// 1, 2 or 5 times a power of ten, at least `rough`.
  static func niceStep(_ rough: Double) -> Double {
    let power = Foundation.pow(10, (Foundation.log10(rough)).rounded(.down))
    for factor in [1.0, 2, 5, 10] where factor * power >= rough * (1 - 1e-9) {
      return factor * power
    }
    return 10 * power
  }

  /// "0%", "90%", "99%", "99.9%", …
  static func percentLabel(_ decade: Int) -> String {
    switch decade {
    case 0: return "0%"
    case 1: return "90%"
    case 2: return "99%"
    default: return "99." + String(repeating: "9", count: decade - 2) + "%"
    }
  }

  private static func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String, width: Double = 1
  ) -> String {
    "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(colour)\" "
      + "stroke-width=\"\(n(width))\"/>\n"
  }

  private static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
    "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\">\(escape(content))</text>\n"
  }

  /// A coordinate with two decimals at most.
  private static func n(_ value: Double) -> String {
    trimmed((value * 100).rounded() / 100)
  }

  private static func trimmed(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() { return String(Int(rounded)) }
    return String(format: "%g", rounded)
  }

  static func escape(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}

/// Microseconds as "812.4 µs", or "64.26 ms" from 10 ms up.
func latencyText(_ microseconds: Double) -> String {
  microseconds >= 10_000
    ? formatted(microseconds / 1000, decimals: 2) + " ms"
    : formatted(microseconds, decimals: 1) + " µs"
}

extension LoadReport {
  /// The latency distribution of each server as a standalone SVG file.
  public func svg() -> String {
    let p = configuration.parameters
    let title =
      "bench load \(p.workload.rawValue): latency by percentile, \(configuration.clients) clients, pipeline \(configuration.pipeline)"
    return LatencyPlot.svg(
      title: title,
      series: targets.map {
        LatencyPlot.Series(
          label:
            "\($0.server) (\($0.role.rawValue)): \(grouped(Int($0.throughput.rounded()))) req/s, "
            + "p50 \(latencyText($0.summary.p50)), p99 \(latencyText($0.summary.p99))",
          histogram: $0.latency)
      })
  }
}
