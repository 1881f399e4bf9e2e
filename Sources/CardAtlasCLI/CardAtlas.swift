import ArgumentParser

@main
struct CardAtlas: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cardatlas",
    abstract: "CardAtlas: a geospatial backend for business cards, photo pins, people and venues.",
    subcommands: [Serve.self, Geocode.self, Import.self, Bench.self])
}

struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Measure CardAtlas.",
    subcommands: [
      BenchIndex.self, BenchLoad.self, BenchCards.self, BenchPins.self, BenchVenues.self,
      BenchPeople.self, BenchQR.self,
    ])
}
