import ArgumentParser
import CardBench
import Foundation

struct BenchPeople: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "people",
    abstract: "Time PEOPLE.NEARBY in process over live presences that keep moving.",
    discussion: """
      Makes --people accounts, each with a primary card, in a fresh store under --data (fsync \
      batch), and a live presence for each at points clustered around real cities; then times \
      --searches PEOPLE.NEARBY searches (People.nearby, no RESP) from random people, one by one, \
      while a thread moves --updates presences a second. Figures are the median and p99 of the \
      searches, and PRESENCE.SET's mean time alone.
      """)

  @Option(help: "People with a live presence.") var people = 1_000_000
  @Option(help: "Searches timed.") var searches = 100_000
  @Option(help: "Presences moved a second during the searches.") var updates = 10_000
  @Option(help: "Search radius in metres.") var radius = 1000.0
  @Option(help: "COUNT of each search.") var count = 20
  @Option(help: "Seed of the points and the searchers.") var seed: UInt64 = 1
  @Option(help: "Directory of the fresh store (removed first).") var data =
    "/tmp/cardatlas-bench-people"

  func run() async throws {
    try? FileManager.default.removeItem(atPath: data)
    let log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    let figures = try await PeopleBenchmark(
      people: people, searches: searches, updatesPerSecond: updates, radius: radius,
      count: count, seed: seed, directory: data, log: log
    ).run()
    for figure in figures {
      print(
        "\(figure.label): \(String(format: "%.2f µs", figure.nanoseconds / 1000))"
          + (figure.note.isEmpty ? "" : "  (\(figure.note))"))
    }
    try? FileManager.default.removeItem(atPath: data)
  }
}
