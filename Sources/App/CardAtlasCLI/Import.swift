import ArgumentParser
import Dispatch
import Foundation
import Gazetteer
import GeocoderClients
import Geocoding
import Importer
import SQLiteDomainStorage
import Synchronization

/// `cardatlas import FILE`: cards from a CSV or JSON Lines file, geocoded, into a running
/// daemon or a data directory.
struct Import: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Import cards from a CSV (with a header row) or JSON Lines file.",
    discussion: """
      Columns are the card's field names (firstName, company, email, phoneNumber, linkedIn, \
      webLinks as JSON text...), plus externalId and ownerEmail (both required: importing the \
      same externalId of the same owner again updates that card; owners without an account \
      get one, invited: no password until they reset it), the address as street, city, \
      region, postcode, country (or one address column), and lon, lat (then nothing is \
      geocoded). A country is a code or a name in any language ("PK", "Pakistan", \
      "Deutschland", "UK"), and only places in it match; one that names no country leaves \
      the row not-found. Unknown columns stop the import before anything is written.

      Ctrl-C stops after the rows already geocoded are written; running the same command \
      again continues after the last written row (<FILE>.checkpoint). With --server, the \
      connection, the sign-in and the right to run CARD.IMPORT are checked before any row. \
      Exits 0 when every row was written, 1 when any row failed, 2 for bad usage or a file \
      refused (nothing written), 3 when the server cannot be reached, refuses the sign-in \
      or is lost, 130 when interrupted.
        cardatlas import staff.csv --data ./var --report staff-report.csv
        cardatlas import staff.jsonl --server 127.0.0.1:7878 --password secret
      """)

  @Argument(help: "The CSV or JSON Lines (.jsonl, .ndjson) file.") var file: String
  @Option(help: "csv or jsonl (default: by the file's extension).") var format: InputFormat?
  @Option(help: "A running daemon, host:port; the import signs in as its admin.")
  var server: String?
  @Option(help: "The daemon's admin password (--requirepass); or CARDATLAS_PASSWORD.")
  var password: String?
  @Option(help: "A data directory to write into directly (the daemon must not be running).")
  var data: String?
  @Option(help: "offline (the GeoNames gazetteer), nominatim, photon or pelias.")
  var geocoder: GeocoderKind = .offline
  @Option(help: "The geocoding service's base URL.") var geocoderUrl: String?
  @Option(help: "Most geocoding requests a second (default: no limit but the service's).")
  var rate: Double?
  @Option(help: "Geocoding requests in flight at once (default: 4, or the cores offline).")
  var concurrency: Int?
  @Option(help: "Write a CSV report of every row here.") var report: String?
  @Option(help: "Geocoded matches below this confidence (0...1) are flagged, not used.")
  var minConfidence = 0.5
  @Option(help: "The resume file (default: <FILE>.checkpoint).") var checkpoint: String?
  @Option(help: "Rows geocoded and written together.") var chunkSize = 1_000
  @Option(help: "Seconds between progress lines when stderr is not a terminal.")
  var progressInterval = 5.0

  func validate() throws {
    guard (server == nil) != (data == nil) else {
      throw ValidationError("give one of --server host:port or --data DIR")
    }
    if let server {
      guard let colon = server.lastIndex(of: ":"), colon != server.startIndex,
        UInt16(server[server.index(after: colon)...]) != nil
      else { throw ValidationError("--server takes host:port, got \(server)") }
    }
    guard (0...1).contains(minConfidence) else {
      throw ValidationError("--min-confidence is between 0 and 1")
    }
    guard (concurrency ?? 1) >= 1, (rate ?? 1) > 0, chunkSize >= 1 else {
      throw ValidationError("--concurrency, --rate and --chunk-size must be positive")
    }
  }

  func run() async throws {
    var options = ImportOptions(
      input: file, format: format ?? InputFormat.guess(file),
      target: server.map { "server \($0)" } ?? "data \(data ?? "")")
    options.report = report
    options.checkpoint = checkpoint
    options.minConfidence = minConfidence
    options.concurrency =
      concurrency ?? (geocoder == .offline ? ProcessInfo.processInfo.activeProcessorCount : 4)
    options.chunkSize = chunkSize
    options.progressInterval = progressInterval
    // The columns are checked, then the target opened (a server reached, signed in to and
    // asked for CARD.IMPORT), before the geocoder loads.
    let source: ImportInput
    do { source = try Importer.open(options) } catch { throw Self.exit(2, error) }
    let sink: any CardSink
    do {
      if let server {
        let resp = try RESPSink(
          server: server,
          password: password ?? ProcessInfo.processInfo.environment["CARDATLAS_PASSWORD"])
        if resp.passwordNotNeeded {
          Self.warn("\(server) has no admin password (--requirepass): --password is not needed")
        }
        sink = resp
      } else {
        sink = try StoreSink(directory: data!)
      }
    } catch { throw Self.exit(server == nil ? 2 : 3, error) }
    defer { sink.close() }
    var geocoder = try makeGeocoder(self.geocoder, url: geocoderUrl, rate: rate, data: data)
    // The countries rows name, as the offline geocoder reads them (with a service too).
    let countries: CountryNames
    do { countries = try (geocoder as? Gazetteer)?.countryNames ?? CountryNames.load() } catch {
      throw ValidationError("\(error)")
    }
    // A service's own rate limit is its PoliteGeocoder's; the gazetteer's is paced here.
    if let rate, self.geocoder == .offline { geocoder = PacedGeocoder(geocoder, rate: rate) }
    StopRequest.install()
    let importer = Importer(
      options: options, geocoder: geocoder, countries: countries, sink: sink,
      stopRequested: { StopRequest.requested })
    let summary: ImportSummary
    do { summary = try await importer.run(source) } catch let error as ImportError {
      if case .server = error { throw Self.exit(3, error) }
      throw Self.exit(2, error)
    }
    print(summary.text)
    if let report { print("report: \(report)") }
    if summary.interrupted { throw ExitCode(130) }
    if summary.failed > 0 { throw ExitCode(1) }
  }
}

extension Import {
  /// Errors as ArgumentParser writes its own (`Error: ...`), with the exit status the help gives.
  static func exit(_ status: Int32, _ error: any Error) -> ExitCode {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    return ExitCode(status)
  }

  static func warn(_ message: String) {
    FileHandle.standardError.write(Data("Warning: \(message)\n".utf8))
  }
}

enum GeocoderKind: String, ExpressibleByArgument, CaseIterable {
  case offline, nominatim, photon, pelias
}

extension InputFormat: ExpressibleByArgument {}

/// The geocoder an import (or another command) uses: the one place to add a service's client.
/// The offline gazetteer, or the service at `url`: polite (`rate` requests a second, else its
/// default), its answers cached in `<data>/geocode-cache.sqlite` (`./var` without `--data`), so
/// a rerun asks it nothing twice.
func makeGeocoder(_ kind: GeocoderKind, url: String?, rate: Double?, data: String?) throws
  -> any Geocoder
{
  switch kind {
  case .offline:
    guard url == nil else { throw ValidationError("--geocoder-url needs an online --geocoder") }
    do { return try Gazetteer() } catch { throw ValidationError("\(error)") }
  case .nominatim, .photon, .pelias:
    guard let url else { throw ValidationError("--geocoder \(kind.rawValue) needs --geocoder-url") }
    let path = ((data ?? "./var") as NSString).appendingPathComponent("geocode-cache.sqlite")
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    return try GeocoderOptions.service(
      kind.rawValue, url: url, rate: rate.map { "\($0)" }, email: nil, timeout: 10,
      cache: GeocodeCache(try SQLiteGeocodeCacheFile(path: path)))
  }
}

/// Ctrl-C (SIGINT) or SIGTERM asks the import to stop after the rows in hand; a second one
/// exits at once (the checkpoint still holds the last written row).
enum StopRequest {
  private static let count = Atomic(0)
  /// The signal sources live as long as the process; set once, before the import starts.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  static func install() {
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        if count.add(1, ordering: .relaxed).newValue > 1 { exit(130) }
        FileHandle.standardError.write(
          Data("\nstopping after the rows in hand (again to quit at once)\n".utf8))
      }
      source.resume()
      sources.append(source)
    }
  }

  static var requested: Bool { count.load(ordering: .relaxed) > 0 }
}
