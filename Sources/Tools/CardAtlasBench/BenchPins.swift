import ArgumentParser
import CardBench
import Foundation

struct BenchPins: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pins",
    abstract: "Time PIN.AT in process against GEOSEARCH on the same points.",
    discussion: """
      Makes --pins photo pins (clustered around real cities, seeded; viewing radii 10 m to \
      1 km on a log scale) through the pins domain in a fresh store under --data (fsync batch), \
      then times PIN.AT (every circle holding a point, with the pins' JSON) against GEOSEARCH \
      1 km COUNT 10 on a GEO key of the same points, interleaved round by round, as built pin by \
      pin and after a reload. Means are the median over the rounds of the mean time per query; \
      the median query is timed query by query.
      """)

  @Option(help: "Pins to make.") var pins = 1_000_000
  @Option(help: "Query points.") var queries = 2000
  @Option(help: "Rounds; the median is reported.") var rounds = 5
  @Option(help: "Seed of the points, radii and query points.") var seed: UInt64 = 1
  @Option(help: "Directory of the fresh store (removed first).") var data =
    "/tmp/cardatlas-bench-pins"

  func run() async throws {
    try? FileManager.default.removeItem(atPath: data)
    let log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    let figures = try await PinBenchmark(
      pins: pins, queries: queries, rounds: rounds, seed: seed, directory: data, log: log
    ).run()
    for figure in figures {
      print(
        "\(figure.label): " + String(format: "%.2f µs", figure.nanoseconds / 1000)
          + (figure.note.isEmpty ? "" : "  (\(figure.note))"))
    }
    try? FileManager.default.removeItem(atPath: data)
  }
}
