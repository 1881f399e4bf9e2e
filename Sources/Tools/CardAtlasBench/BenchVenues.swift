import ArgumentParser
import Foundation
import VenueBench

struct BenchVenues: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "venues",
    abstract: "Time check-ins and EXPOSURE in process, over a month of replayed visits.",
    discussion: """
      Makes --accounts accounts and --venues venues (around real cities, seeded) in a fresh \
      store under --data (fsync batch), replays --visits check-ins over 30 simulated days \
      (most checked out after 15 minutes to 4 hours, a tenth left open), then times EXPOSURE \
      over the whole month for --queries random accounts and for the account with the most \
      visits. CHECKIN over the wire, durably: `cardatlas-bench load --workload checkin`.
      """)

  @Option(help: "Visits to replay.") var visits = 1_000_000
  @Option(help: "Accounts that visit.") var accounts = 20_000
  @Option(help: "Venues.") var venues = 5_000
  @Option(help: "Accounts whose exposure is searched.") var queries = 1000
  @Option(help: "Seed of the venues and the visits.") var seed: UInt64 = 1
  @Option(help: "Directory of the fresh store (removed first).") var data =
    "/tmp/cardatlas-bench-venues"

  func run() async throws {
    guard visits > 0, accounts > 1, venues > 0, queries > 0 else {
      throw ValidationError("--visits, --venues and --queries must be > 0, --accounts > 1")
    }
    try? FileManager.default.removeItem(atPath: data)
    let log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    let figures = try await VenueBenchmark(
      visits: visits, accounts: accounts, venues: venues, queries: queries, seed: seed,
      directory: data, log: log
    ).run()
    for figure in figures {
      print("\(figure.label): \(figure.value)" + (figure.note.isEmpty ? "" : "  (\(figure.note))"))
    }
    try? FileManager.default.removeItem(atPath: data)
  }
}
