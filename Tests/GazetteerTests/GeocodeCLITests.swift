import Foundation
import Geocoding
import RedisTestSupport
import Testing

/// `cardatlas geocode`, run as the built executable.
@Suite("cardatlas geocode")
struct GeocodeCLITests {

  /// Runs `cardatlas geocode ...` from a folder without data/, so the data is found as an
  /// installed program would find it: through CARDATLAS_DATA.
  func geocode(_ arguments: [String]) throws -> (out: String, err: String, status: Int32) {
    let process = ChildProcess()
    process.executableURL = try CardAtlasExecutable.url()
    process.arguments = ["geocode"] + arguments
    process.currentDirectoryURL = FileManager.default.temporaryDirectory
    var environment = ProcessInfo.processInfo.environment
    environment["CARDATLAS_DATA"] = dataFolder.path
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let error = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self),
      process.terminationStatus
    )
  }

  func places(_ json: String) throws -> [Place] {
    try json.split(separator: "\n").map {
      try #require(Place(json: String($0)), "not a place: \($0)")
    }
  }

  @Test("--json: one object per candidate per line, best first, with the normalized fields")
  func forwardJSON() throws {
    let run = try geocode(["Paris,", "TX", "--json", "--count", "3"])
    #expect(run.status == 0, "\(run.err)")
    let found = try places(run.out)
    #expect(found.count == 1)
    let paris = try #require(found.first)
    #expect(paris.region == "Texas" && paris.countryCode == "US" && paris.provider == "geonames")
    #expect(abs(paris.lon - -95.55551) < 1e-6 && abs(paris.lat - 33.66094) < 1e-6)
    #expect(paris.ids == ["geonameid": "4717560"])
    // Every line is a JSON object carrying the keys, bbox null when unknown.
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(run.out.split(separator: "\n")[0].utf8))
        as? [String: Any])
    for key in ["lon", "lat", "label", "bbox", "confidence", "provider"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    #expect(object["bbox"] is NSNull)

    let many = try places(try geocode(["Springfield", "--json", "--count", "4"]).out)
    #expect(many.count == 4)
    #expect(many.map(\.confidence) == many.map(\.confidence).sorted(by: >))
    let liechtenstein = try places(try geocode(["--country", "li", "Vaduz", "--json"]).out)
    #expect(liechtenstein.map(\.label) == ["Vaduz, Liechtenstein"])
  }

  @Test("--reverse takes a negative longitude and names the place, region and distance")
  func reverseJSON() throws {
    let run = try geocode(["--reverse", "-86.46", "32.46", "--json"])
    #expect(run.status == 0, "\(run.err)")
    let place = try #require(try places(run.out).first)
    #expect(place.label == "Prattville, Alabama, United States")
    #expect(place.distance != nil && place.distance! < 1_000)
  }

  @Test("A table on a terminal, without --json")
  func table() throws {
    let run = try geocode(["Prattville,", "Alabama"])
    #expect(run.status == 0)
    let lines = run.out.split(separator: "\n")
    #expect(lines.first?.hasPrefix("#  confidence") == true)
    #expect(lines.count == 2 && lines[1].contains("Prattville, Alabama, United States"))
  }

  @Test("No match exits 1; bad input exits 64 with a clear message")
  func failures() throws {
    let none = try geocode(["Qwxzv", "Nowhere", "--json"])
    #expect(none.status == 1 && none.out.isEmpty)
    let ocean = try geocode(["--reverse", "-140", "-40"])
    #expect(ocean.status == 1 && ocean.out.contains("no match"))
    let cases: [([String], String)] = [
      ([], "the address is empty"),
      (["--reverse", "200", "1"], "invalid coordinate"),
      (["--reverse", "nan", "1"], "invalid coordinate"),
      (["--reverse", "1"], "--reverse takes two numbers"),
      (["--country", "XX", "Paris"], "no country has the code \"XX\""),
      (["--count", "0", "Paris"], "the count must be between 1 and 50"),
      ([String(repeating: "a", count: 5_000)], "at most 1000 are accepted"),
      (["Paris", "--bogus"], "unknown option --bogus"),
    ]
    for (arguments, message) in cases {
      let run = try geocode(arguments)
      #expect(run.status == 64, "\(arguments.prefix(3))")
      #expect(run.err.contains(message), "\(arguments.prefix(3)): \(run.err)")
    }
  }
}
