import ArgumentParser
import Foundation
import LoadGen

struct BenchLoad: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "load",
    abstract: "Load-test CardAtlas or any Redis over RESP, optionally against a second server.",
    discussion: """
      Loads --points realistic points (clustered around real cities, seeded) into --key on each \
      server with pipelined GEOADDs, named p0, p1, … (the key is replaced; --points 0 skips \
      loading). Then --clients connections send the workload. As with redis-benchmark -P, each \
      connection writes --pipeline requests at once and waits for all their replies before \
      writing the next ones; a request's latency runs from the write of its window to the \
      arrival of its reply. Requests are encoded before timing starts. With --compare, the \
      second server gets the same points and, after the target, the identical requests, and \
      the ratios target ÷ compare are printed. With --baseline, a second workload (ping, say) \
      runs on every server too, and each server's throughput ratio workload ÷ baseline is \
      printed: what a query costs beyond a round trip, measured in the same run. --rounds \
      splits every measurement into rounds, odd rounds in the reverse order of even ones, so \
      that a machine whose speed drifts weighs on all the figures alike.

      Workloads (query centres are drawn like the points, unless --center fixes one):
        radius  GEOSEARCH key FROMLONLAT lon lat BYRADIUS <radius> km ASC COUNT 10
        knn     GEOSEARCH key FROMLONLAT lon lat BYRADIUS <knn-radius> km
                  ASC COUNT <k>
                Redis has no unbounded nearest-neighbour search: this is a radius
                search with a large radius, nearest first, cut at k (the true k
                nearest whenever k points lie within the radius).
        box     GEOSEARCH key FROMLONLAT lon lat BYBOX <width> <height> km
                  ASC COUNT 10
        add     GEOADD key lon lat p<N>: moves an existing member up to 100 m
                (with --points 0: p0…p9999 of the seed's dataset)
        mixed   90% radius requests and 10% add requests, shuffled (seeded)
        ping    PING
        cards   CARD.SEARCH FROMLONLAT lon lat BYRADIUS <radius> km COUNT 10
                (CardAtlas only) over a card at each point, made before timing
                through the protocol: Pro accounts of --cards-per-account cards
                each (serve with --pro-card-limit at least that,
                --signups-per-address 0 and no --requirepass), then
                pipelined CARD.CREATE from --clients accounts at once (the
                CARD.CREATE rate is printed). Each connection signs in with
                SESSION.RESUME before the clock starts.
                With --baseline radius, GEOSEARCH runs on the same points.
        pins    PIN.AT lon lat (CardAtlas only) over a photo pin at each point
                (viewing radii 10 m to 1 km, log scale, seeded), made before
                timing by pipelined PIN.ADD as for cards (--cards-per-account
                pins per account; serve with --pins-per-hour 0 too). With
                --baseline radius, GEOSEARCH runs on the same points.
        checkin CHECKIN <code> <lon> <lat> (CardAtlas only): a durable write
                per request. Before timing, an owner account makes --venues
                venues (around real cities) and reads their codes, and each
                connection signs in as a visitor account of its own (no
                --requirepass, --signups-per-address 0 --venues-per-hour 0;
                one server, no --compare). Each request checks its visitor in at a random
                venue, closing the visit before.
        presence  PRESENCE.SET lon lat (CardAtlas only), each connection signed
                in as an account of its own (made before timing, no cards;
                serve with --signups-per-address 0, without --requirepass),
                moving its live presence from centre to centre.

      Prints requests/s and latency percentiles per server (progress goes to stderr). Exits \
      with status 1 when any reply was an error, after printing everything; with status 2 \
      when a server cannot be reached or stops answering.
      """)

  @Option(
    help: "The server to load, host:port: CardAtlas or any Redis. (default: 127.0.0.1:7878)",
    transform: { try ServerAddress(parsing: $0) })
  var target = ServerAddress(host: "127.0.0.1", port: 7878)

  @Option(
    help: "A second server, host:port, that gets the identical workload in the same run.",
    transform: { try ServerAddress(parsing: $0) })
  var compare: ServerAddress?

  @Option(help: "Connections per server.") var clients = 50
  @Option(help: "Requests in flight per connection (written together, like redis-benchmark -P).")
  var pipeline = 16
  @Option(
    help: "Requests per server and workload (default 100000 unless --duration is given).")
  var requests: Int?
  @Option(help: "Seconds per server and workload (with --requests too: whichever comes first).")
  var duration: Double?
  @Option(help: "Split each server's and workload's requests or seconds into this many rounds.")
  var rounds = 1

  @Option(
    help:
      "radius, knn, box, add, mixed, ping, cards, pins, checkin or presence. (default: radius)",
    transform: Self.workload(named:))
  var workload = Workload.radius

  @Option(
    help: "A second workload run on every server, for the ratio workload ÷ baseline (e.g. ping).",
    transform: Self.workload(named:))
  var baseline: Workload?

  @Option(help: "Points to load before timing; 0 skips loading (default 1000000, 0 for ping).")
  var points: Int?
  @Option(help: "The GEO key loaded, searched and moved.") var key = "bench:points"
  @Option(help: "Seed of the points, the query centres and the moves.") var seed: UInt64 = 1
  @Option(
    help: "One fixed query centre lon,lat, e.g. 139.6917,35.6895 (Tokyo).",
    transform: { try LonLat(parsing: $0) })
  var center: LonLat?
  @Option(help: "radius and mixed: search radius in km.") var radius = 1.0
  @Option(help: "knn: the k nearest.") var k = 10
  @Option(help: "knn: the bounding radius in km.") var knnRadius = 50.0
  @Option(help: "box: width in km.") var boxWidth = 2.0
  @Option(help: "box: height in km.") var boxHeight = 2.0
  @Option(help: "cards: cards per account made before timing.") var cardsPerAccount = 1000
  @Option(
    help:
      "cards: FILTER company <company> on every search (the cards' companies are Acme, Globex, Initech, Umbrella, Hooli, Stark, Wayne and Tyrell, in turn)."
  )
  var company: String?
  @Option(help: "checkin: venues made before timing.") var venues = 1000

  @Flag(help: "Print one JSON object on the last line of stdout.") var json = false
  @Option(help: "Write the JSON object to this file.") var jsonFile: String?
  @Option(help: "Write the latency-by-percentile plot (SVG) to this file.") var svg: String?
  @Option(help: "Give up when no reply arrives for this many seconds.") var timeout = 10.0
  @Option(help: "Event loop threads of the generator (default: one per core).") var threads: Int?
  @Flag(help: "No progress lines on stderr.") var quiet = false

  static func workload(named text: String) throws -> Workload {
    guard let workload = Workload(rawValue: text) else {
      throw ValidationError(
        "unknown workload '\(text)': radius, knn, box, add, mixed, ping, cards, pins, checkin or presence"
      )
    }
    return workload
  }

  var loadConfiguration: LoadConfiguration {
    var configuration = LoadConfiguration(
      target: target, compare: compare, clients: clients, pipeline: pipeline,
      requests: requests, duration: duration, points: points, seed: seed,
      parameters: WorkloadParameters(
        workload: workload, key: key, radiusKm: radius, k: k, knnRadiusKm: knnRadius,
        boxWidthKm: boxWidth, boxHeightKm: boxHeight, center: center, company: company),
      stallTimeout: timeout, progressInterval: quiet ? nil : 1, threads: threads,
      baseline: baseline, rounds: rounds, cardsPerAccount: cardsPerAccount)
    configuration.venues = venues
    return configuration
  }

  func validate() throws {
    do {
      try loadConfiguration.validate()
    } catch {
      throw ValidationError(error.description)
    }
  }

  func run() async throws {
    let quiet = quiet
    let log: @Sendable (String) -> Void = { line in
      if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
    let report: LoadReport
    do {
      report = try await LoadBenchmark(configuration: loadConfiguration, log: log).run()
    } catch let error as LoadGenError {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    print(report.table())
    if let svg {
      try Data(report.svg().utf8).write(to: URL(fileURLWithPath: svg))
      FileHandle.standardError.write(Data("wrote \(svg)\n".utf8))
    }
    let json = report.json()
    if let jsonFile {
      try Data((json + "\n").utf8).write(to: URL(fileURLWithPath: jsonFile))
    }
    if self.json { print(json) }
    if report.errors > 0 {
      FileHandle.standardError.write(
        Data("error: \(report.errors) replies were errors (see ERROR REPLIES above)\n".utf8))
      throw ExitCode(1)
    }
  }
}
