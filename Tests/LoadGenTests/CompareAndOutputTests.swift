import Foundation
import RESP
import RedisTestSupport
import Testing

@testable import LoadGen

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `--compare` against a second redis-server, and what a run writes: table, JSON, SVG.
@Suite struct CompareAndOutputTests {
  /// One compared run shared by the tests below (two servers, 2000 points each), made once.
  actor ComparedRun {
    static let shared = ComparedRun()
    private var run: Task<(LoadReport, [ServerAddress]), any Error>?

    func get() async throws -> (LoadReport, [ServerAddress]) {
      if run == nil { run = Task { try await Self.make() } }
      return try await run!.value
    }

    private static func make() async throws -> (LoadReport, [ServerAddress]) {
      let (first, target) = try startRedis()
      let (second, compare) = try startRedis()
      defer {
        first.stop()
        second.stop()
      }
      let report = try await LoadBenchmark(
        configuration: smallConfiguration(.radius, target: target, compare: compare)
      ).run()
      // Both servers got the same points.
      for server in [target, compare] {
        let count = try await withClient(server) { try await $0.send("ZCARD", "bench:points") }
        guard case .integer(2000) = count else {
          throw CheckFailed("ZCARD on \(server) answered \(count)")
        }
      }
      return (report, [target, compare])
    }
  }

  struct CheckFailed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  @Test func compareRunsTheSameWorkloadOnBothAndGivesRatios() async throws {
    let (report, servers) = try await ComparedRun.shared.get()
    #expect(report.targets.map(\.server) == servers)
    #expect(report.targets.map(\.role) == [.target, .compare])
    for result in report.targets {
      #expect(result.requests == 3000)
      #expect(result.errors == 0)
      #expect(result.load?.points == 2000)
      expectMonotone(result.summary)
    }
    let ratio = try #require(report.ratio)
    let expected = report.targets[0].throughput / report.targets[1].throughput
    #expect(abs(ratio.throughput - expected) <= 1e-9 * expected)
    #expect(ratio.throughput > 0)
    let p50 = report.targets[0].summary.p50 / report.targets[1].summary.p50
    #expect(abs(ratio.latency.p50 - p50) <= 1e-9 * p50)
    #expect(ratio.latency.max > 0)
    let table = report.table()
    #expect(table.contains("target ÷ compare"))
    #expect(table.contains(servers[0].description) && table.contains(servers[1].description))
    #expect(!table.contains("ERROR REPLIES"))
  }

  @Test func jsonParsesAndHasTheExpectedKeys() async throws {
    let (report, servers) = try await ComparedRun.shared.get()
    let text = report.json()
    #expect(!text.contains("\n"), "one line")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    for key in [
      "workload", "command", "clients", "pipeline", "request_limit", "points", "key", "seed",
      "targets", "ratio", "errors", "ok",
    ] {
      #expect(object[key] != nil, "missing \(key)")
    }
    #expect(object["workload"] as? String == "radius")
    #expect(object["clients"] as? Int == 4)
    #expect(object["pipeline"] as? Int == 8)
    #expect(object["points"] as? Int == 2000)
    #expect(object["ok"] as? Bool == true)
    #expect((object["command"] as? String)?.hasPrefix("GEOSEARCH bench:points FROMLONLAT") == true)
    let targets = try #require(object["targets"] as? [[String: Any]])
    #expect(targets.count == 2)
    #expect(targets.compactMap { $0["server"] as? String } == servers.map(\.description))
    #expect(targets.compactMap { $0["role"] as? String } == ["target", "compare"])
    for target in targets {
      #expect(target["requests"] as? Int == 3000)
      #expect(target["errors"] as? Int == 0)
      #expect((target["throughput"] as? Double ?? 0) > 0)
      let latency = try #require(target["latency_us"] as? [String: Double])
      let ordered = ["p50", "p90", "p99", "p99.9", "max"].compactMap { latency[$0] }
      #expect(ordered.count == 5)
      #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 <= $1 })
      let load = try #require(target["load"] as? [String: Any])
      #expect(load["points"] as? Int == 2000)
    }
    let ratio = try #require(object["ratio"] as? [String: Any])
    #expect((ratio["throughput"] as? Double ?? 0) > 0)
    let latencyRatio = try #require(ratio["latency"] as? [String: Double])
    #expect(Set(latencyRatio.keys).isSuperset(of: ["p50", "p90", "p99", "p99.9", "max"]))
  }

  @Test func svgIsWellFormedWithOnePathPerServer() async throws {
    let (report, servers) = try await ComparedRun.shared.get()
    let svg = report.svg()
    let document = try SVGDocument(svg)
    #expect(document.root == "svg")
    #expect(document.elements["path"] == 2)
    #expect(document.pathTitles.count == 2)
    #expect(document.pathTitles.first?.hasPrefix("\(servers[0]) (target)") == true)
    #expect(document.pathTitles.last?.hasPrefix("\(servers[1]) (compare)") == true)
    // The legend names each server; the axes are labelled.
    for server in servers {
      #expect(document.texts.contains { $0.hasPrefix("\(server) (") })
    }
    #expect(document.texts.contains { $0.hasPrefix("Percentile") })
    #expect(document.texts.contains { $0.hasPrefix("Latency (") })
    for label in ["0%", "90%", "99%", "99.9%"] {
      #expect(document.texts.contains(label), "no \(label) tick")
    }
  }

  @Test func svgOfOneServerHasOnePath() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(.ping, target: server, requests: 2000, points: 0)
    ).run()
    let document = try SVGDocument(report.svg())
    #expect(document.elements["path"] == 1)
    #expect(document.pathTitles.count == 1)
    #expect(document.pathTitles.first?.hasPrefix("\(server) (target)") == true)
  }
}

/// What XMLParser finds in an SVG file: it must parse as XML.
struct SVGDocument {
  var root: String?
  var elements: [String: Int] = [:]
  var texts: [String] = []
  var pathTitles: [String] = []

  struct Malformed: Error {
    var error: (any Error)?
  }

  init(_ svg: String) throws {
    let parser = XMLParser(data: Data(svg.utf8))
    let delegate = Delegate()
    parser.delegate = delegate
    guard parser.parse() else { throw Malformed(error: parser.parserError) }
    root = delegate.root
    elements = delegate.elements
    texts = delegate.texts
    pathTitles = delegate.pathTitles
  }

  final class Delegate: NSObject, XMLParserDelegate {
    var root: String?
    var elements: [String: Int] = [:]
    var texts: [String] = []
    var pathTitles: [String] = []
    private var stack: [String] = []
    private var text = ""

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      if root == nil { root = elementName }
      elements[elementName, default: 0] += 1
      stack.append(elementName)
      text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      text += string
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      stack.removeLast()
      if elementName == "text" { texts.append(text) }
      if elementName == "title", stack.last == "path" { pathTitles.append(text) }
      text = ""
    }
  }
}
