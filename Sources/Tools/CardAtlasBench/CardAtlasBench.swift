import ArgumentParser

/// `cardatlas-bench`: the benchmarks, an executable of their own so that the daemon links none
/// of their code (the index baselines, the datasets' generators, the load generator).
@main
struct CardAtlasBench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cardatlas-bench",
    abstract: "Measure CardAtlas: the index, the wire under load, and each domain in process.",
    subcommands: [
      BenchIndex.self, BenchLoad.self, BenchCards.self, BenchPins.self, BenchVenues.self,
      BenchPeople.self, BenchQR.self, BenchNodes.self, BenchFences.self, BenchHooks.self,
    ])
}
