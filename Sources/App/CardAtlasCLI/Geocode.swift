import ArgumentParser
import Foundation
import Gazetteer
import GeocoderClients
import Geocoding

/// `cardatlas geocode`: forward and reverse geocoding from the command line, offline through the
/// GeoNames gazetteer in data/.
struct Geocode: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Geocode an address, or name the place at a point (--reverse).",
    discussion: """
      Uses the offline GeoNames gazetteer (data/gazetteer.tsv.gz; CARDATLAS_DATA names another \
      data folder), or with --geocoder-url a Nominatim, Photon or Pelias service, rate limited \
      and cached (docs/GEOCODING-HTTP.md). Prints a table, or with --json one JSON object per candidate per line, best \
      first. Exits 1 when nothing matches.
        cardatlas geocode "Paris, TX"
        cardatlas geocode --country LI Vaduz --json
        cardatlas geocode --reverse -86.46 32.46
        cardatlas geocode --geocoder-url http://127.0.0.1:8088 "Austrasse 15, Vaduz"
      """)

  @Flag(help: "Reverse geocoding: the words are <lon> <lat>.") var reverse = false
  @Option(help: "Only places in this country (ISO 3166-1 alpha-2, e.g. LI).") var country: String?
  @Option(help: "Only places in this region (state, province...: a name or code).")
  var region: String?
  @Option(help: "Candidates to show, at most \(GeocodeQuery.maximumLimit).") var count = 5
  @Flag(help: "One JSON object per line instead of a table.") var json = false
  @OptionGroup var service: GeocoderOptions
  // Collected unparsed so that negative coordinates ("-86.46") are not taken for options.
  @Argument(
    parsing: .allUnrecognized, help: "The address (quote it, or it is the words joined by spaces).")
  var words: [String] = []

  /// Bad input is refused before the data is loaded (which takes a second or two in debug).
  func validate() throws {
    do {
      if reverse {
        let point = try self.point()
        try validateCoordinate(lon: point.lon, lat: point.lat)
      } else {
        _ = try query().validated()
      }
    } catch let error as GeocodeError {
      throw ValidationError(error.description)
    }
  }

  func run() async throws {
    let geocoder: any Geocoder
    do { geocoder = try service.makeGeocoder() } catch { throw ValidationError("\(error)") }
    let places: [Place]
    do {
      if reverse {
        let point = try self.point()
        places = try await geocoder.reverse(lon: point.lon, lat: point.lat).map { [$0] } ?? []
      } else {
        places = try await geocoder.search(query())
      }
    } catch let error as GeocodeError {
      throw ValidationError(error.description)
    } catch let error as GeocoderServiceError {
      // The service failed, not the command line: no usage text.
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      throw ExitCode(2)
    }
    if json {
      for place in places { print(Self.jsonLine(place)) }
    } else {
      print(Self.table(places))
    }
    if places.isEmpty { throw ExitCode(1) }
  }

  private func query() throws -> GeocodeQuery {
    if let option = words.first(where: { $0.hasPrefix("-") }) {
      throw ValidationError("unknown option \(option)")
    }
    return GeocodeQuery(
      words.joined(separator: " "), countryCode: country, region: region, limit: count)
  }

  private func point() throws -> (lon: Double, lat: Double) {
    guard words.count == 2, let lon = Double(words[0]), let lat = Double(words[1]) else {
      throw ValidationError("--reverse takes two numbers: <lon> <lat>, got \(words)")
    }
    guard country == nil, region == nil else {
      throw ValidationError("--country and --region apply to forward geocoding only")
    }
    return (lon, lat)
  }

  static func jsonLine(_ place: Place) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a Place cannot fail: it holds only strings and finite numbers.
    return String(decoding: (try? encoder.encode(place)) ?? Data(), as: UTF8.self)
  }

  static func table(_ places: [Place]) -> String {
    guard !places.isEmpty else { return "no match" }
    let header = ["#", "confidence", "lon", "lat", "label", "id"]
    var rows = [header]
    for (i, p) in places.enumerated() {
      var id = p.ids.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
        separator: " ")
      if let d = p.distance { id += String(format: " (%.1f km away)", d / 1000) }
      rows.append([
        "\(i + 1)", String(format: "%.3f", p.confidence), String(format: "%.5f", p.lon),
        String(format: "%.5f", p.lat), p.label, id,
      ])
    }
    let widths = header.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { c, cell in
        c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }
}
