import Foundation
import Geocoding
import RedisTestSupport
import Testing

@testable import Gazetteer

/// The data file: found, read, and refused with a clear error when it is not what it should be.
@Suite("Gazetteer loading")
struct LoadingTests {
  static let header =
    "# test\n@countries 1\nLI\tLIE\tLiechtenstein\tliechtenstein|li|lie\n"
    + "@regions 1\nLI\t11\tVaduz\tvaduz\n"

  /// gzip(1) output for `text`, as the generator's gzip module writes it.
  func gzip(_ text: String) throws -> [UInt8] {
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c", "-n"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return [UInt8](data)
  }

  func load(_ text: String) throws -> Gazetteer {
    try Gazetteer(gzip: gzip(text), maximumReverseDistance: 50_000)
  }

  @Test("A small file loads and answers")
  func small() throws {
    let g = try load(
      Self.header + "@places 2\n"
        + "3042030\tVaduz\tLI\t11\t5197\t9.52154\t47.14151\tvaduz|wa dou zi\n"
        + "3042058\tSchaan\tLI\t\t5748\t9.50867\t47.16498\tschaan\n")
    #expect(g.counts.places == 2 && g.counts.keys == 3)
    let vaduz = try #require(try g.lookup(GeocodeQuery("Vaduz, LI")).first)
    #expect(vaduz.label == "Vaduz, Liechtenstein" && vaduz.region == "Vaduz")
    #expect(try g.lookup(GeocodeQuery("Wa-Dou-Zi")).first?.name == "Vaduz")
    let schaan = try #require(try g.nearest(lon: 9.51, lat: 47.17))
    #expect(schaan.name == "Schaan" && schaan.region == nil)
    #expect(schaan.label == "Schaan, Liechtenstein")
  }

  @Test(
    "Malformed files are refused with the line and the reason",
    arguments: [
      ("@places 1\n1\tA\tLI\t\t0\t9.5\t47.1\n", 7, "malformed place"),
      ("@places 1\n1\tA\tXX\t\t0\t9.5\t47.1\ta\n", 7, "unknown country"),
      ("@places 1\n1\tA\tLI\t\t0\t190\t47.1\ta\n", 7, "coordinate out of range"),
      ("@places 1\n1\tA\tLI\t\t0\t9.5x\t47.1\ta\n", 7, "malformed place"),
      ("@places 1\n1\tA\tLI\t\t-5\t9.5\t47.1\ta\n", 7, "malformed place"),
      ("@places 2\n1\tA\tLI\t\t0\t9.5\t47.1\ta\n", 7, "unexpected end of file"),
      ("@places 1\n1\tA\tLI\t\t0\t9.5\t47.1\ta\nmore\n", 7, "text after the last place"),
      ("@cities 1\n", 6, "expected the section @places"),
    ])
  func malformed(_ tail: String, _ line: Int, _ reason: String) throws {
    #expect(throws: GazetteerError.malformed(line: line, reason: reason)) {
      try load(Self.header + tail)
    }
  }

  @Test("Not gzip, damaged gzip, a missing file, a data folder without the file")
  func unreadable() throws {
    #expect(throws: GazetteerError.malformed(line: 0, reason: "not a gzip file")) {
      try Gazetteer(gzip: Array("hello".utf8), maximumReverseDistance: 1)
    }
    var damaged = try gzip(Self.header + "@places 0\n")
    damaged[damaged.count / 2] ^= 0xFF
    #expect(throws: GazetteerError.self) { try Gazetteer(gzip: damaged, maximumReverseDistance: 1) }
    let truncated = try [UInt8](Data(contentsOf: Gazetteer.locateData()).prefix(100_000))
    #expect(throws: GazetteerError.self) {
      try Gazetteer(gzip: truncated, maximumReverseDistance: 1)
    }
    #expect(throws: GazetteerError.unreadable(path: "/nonexistent/gazetteer.tsv.gz")) {
      try Gazetteer(contentsOf: URL(fileURLWithPath: "/nonexistent/gazetteer.tsv.gz"))
    }
    let empty = FileManager.default.temporaryDirectory.path
    #expect(throws: GazetteerError.self) {
      try Gazetteer.locateData(environment: ["CARDATLAS_DATA": empty])
    }
    #expect(try Gazetteer.locateData(environment: [:]).lastPathComponent == Gazetteer.fileName)
  }
}
