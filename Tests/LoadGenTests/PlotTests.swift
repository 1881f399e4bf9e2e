import Histogram
import Testing

@testable import LoadGen

/// The plot's scales, without a server.
@Suite struct PlotTests {
  @Test func ticksAreRoundNumbers() {
    #expect(LatencyPlot.niceStep(0.7) == 1)
    #expect(LatencyPlot.niceStep(1.3) == 2)
    #expect(LatencyPlot.niceStep(3) == 5)
    #expect(LatencyPlot.niceStep(45) == 50)
    #expect(LatencyPlot.niceStep(100) == 100)
    #expect(LatencyPlot.percentLabel(0) == "0%")
    #expect(LatencyPlot.percentLabel(1) == "90%")
    #expect(LatencyPlot.percentLabel(2) == "99%")
    #expect(LatencyPlot.percentLabel(3) == "99.9%")
    #expect(LatencyPlot.percentLabel(4) == "99.99%")
  }

  @Test func labelsAreEscapedAndEveryPointIsInsideThePlot() throws {
    var histogram = Histogram<UInt64>(highestTrackableValue: 1_000_000_000)
    for value in 1...10_000 { histogram.record(UInt64(value) * 1000) }
    let svg = LatencyPlot.svg(
      title: "a < b & c", series: [LatencyPlot.Series(label: "\"x\" <y>", histogram: histogram)])
    #expect(svg.contains("a &lt; b &amp; c"))
    #expect(svg.contains("&quot;x&quot; &lt;y&gt;"))
    #expect(!svg.contains("\"x\" <y>"))
    let path = try #require(svg.split(separator: "\n").first { $0.hasPrefix("<path ") })
    let d = try #require(path.split(separator: "\"").dropFirst().first)
    let numbers = d.split(whereSeparator: { $0 == " " || $0 == "M" || $0 == "L" })
      .compactMap { Double($0) }
    #expect(numbers.count >= 20 && numbers.count % 2 == 0)
    let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
    let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
    // Plot area: x 80…870, y 50…470 (SVG y grows downwards: latency grows upwards).
    #expect(xs.allSatisfy { (80...870).contains($0) })
    #expect(ys.allSatisfy { (50...470).contains($0) })
    #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 <= $1 }, "x only goes right")
    #expect(zip(ys, ys.dropFirst()).allSatisfy { $0 >= $1 }, "latency only goes up")
    #expect(xs.last == 870)
  }
}
