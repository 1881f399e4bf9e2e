import ArgumentParser
import CardBench
import Foundation

struct BenchCards: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cards",
    abstract:
      "Time the card domain in process: map search against GEOSEARCH, clusters, wallet search, memory.",
    discussion: """
      Makes --cards cards (clustered around real cities, seeded) through the card domain in a \
      fresh store under --data (fsync batch), then times CARD.SEARCH's domain search against \
      GEOSEARCH on a GEO key of the same points (interleaved, round by round), CARD.CLUSTERS for \
      the world at zoom 3 and for city viewports at zoom 12, and WALLET.SEARCH on a wallet of \
      --wallet-cards cards. Memory is the process's RSS growth over the cards' creation, less the \
      cards' JSON. Figures are the median over the rounds of the mean time per operation.
      """)

  @Option(help: "Cards to make.") var cards = 1_000_000
  @Option(help: "Cards per Pro account.") var perAccount = 1000
  @Option(help: "Query centres per search figure.") var queries = 2000
  @Option(help: "Rounds; the median is reported.") var rounds = 5
  @Option(help: "Cards in the searched wallet.") var walletCards = 10_000
  @Option(help: "Seed of the points and the centres.") var seed: UInt64 = 1
  @Option(help: "Directory of the fresh store (removed first).") var data =
    "/tmp/cardatlas-bench-cards"

  func run() async throws {
    try? FileManager.default.removeItem(atPath: data)
    let log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    let figures = try await CardBenchmark(
      cards: cards, perAccount: perAccount, queries: queries, rounds: rounds,
      walletCards: walletCards, seed: seed, directory: data, log: log
    ).run()
    for figure in figures {
      let value =
        figure.label.hasPrefix("memory")
        ? String(format: "%.0f", figure.nanoseconds)
        : String(format: "%.1f µs", figure.nanoseconds / 1000)
      print("\(figure.label): \(value)" + (figure.note.isEmpty ? "" : "  (\(figure.note))"))
    }
    try? FileManager.default.removeItem(atPath: data)
  }
}
