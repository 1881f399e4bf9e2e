import Foundation
import NIOCore
import RedisTestSupport
import Testing

/// docs/ARCHITECTURE.md's rules, checked on `Package.swift` as SwiftPM reads it, and
/// docs/PROTOCOL.md's command index on what a running server answers.
@Suite("Architecture: layers, what the daemon links, the command index")
struct ArchitectureTests {
  /// `Sources/`'s folders, each depending only on itself and those before it.
  static let layers = [
    "CShims", "GeoCore", "Storage", "Domain", "DomainStorage", "Doors", "Tools", "App",
  ]
  static let benchmarks: Set = [
    "IndexBench", "IndexBaselines", "CardBench", "VenueBench", "LoadGen", "CardAtlasBench",
    "CommandFuzzer",
  ]
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The package's targets as SwiftPM reads them (`swift package dump-package`).
  static func manifestTargets() throws -> [[String: Any]] {
    // A scratch path of its own: the package's, `.build`, is locked by the `swift test` that
    // runs this test.
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-manifest-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let (output, status) = try RedisProcess.run(
      "swift",
      ["package", "--package-path", root.path, "--scratch-path", scratch, "dump-package"])
    try #require(status == 0, "\(output)")
    let json = output[output.firstIndex(of: "{")!...]
    let package = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    return package["targets"] as? [[String: Any]] ?? []
  }

  /// Each source target's layer and the targets it depends on.
  static func targets() throws -> [String: (layer: String, dependencies: [String])] {
    var targets: [String: (String, [String])] = [:]
    for target in try manifestTargets() {
      guard let name = target["name"] as? String, let path = target["path"] as? String,
        path.hasPrefix("Sources/")
      else { continue }
      let parts = path.split(separator: "/").map(String.init)
      #expect(parts.count == 3 && parts[2] == name, "\(name) sits at \(path)")
      let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap {
        (($0["byName"] ?? $0["target"] ?? $0["product"]) as? [Any])?.first as? String
      }
      targets[name] = (parts[1], dependencies)
    }
    return targets
  }

  @Test("every domain module has a unit-test target of its own, depending on it")
  func everyDomainModuleHasItsTests() throws {
    let all = try Self.manifestTargets()
    var tests: [String: [String]] = [:]
    for target in all where target["type"] as? String == "test" {
      guard let name = target["name"] as? String else { continue }
      tests[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap {
        (($0["byName"] ?? $0["target"] ?? $0["product"]) as? [Any])?.first as? String
      }
    }
    let domain = all.compactMap { target -> String? in
      guard let path = target["path"] as? String, path.hasPrefix("Sources/Domain/") else {
        return nil
      }
      return target["name"] as? String
    }
    #expect(domain.count >= 10)
    for name in domain {
      #expect(tests[name + "Tests"]?.contains(name) == true, "no \(name)Tests target")
    }
  }

  @Test("every module sits in its layer's folder and depends only on its own layer or earlier ones")
  func layersPointOneWay() throws {
    let targets = try Self.targets()
    #expect(targets.count > 40)
    for (name, target) in targets {
      let layer = try #require(Self.layers.firstIndex(of: target.layer), "\(name): \(target.layer)")
      for dependency in target.dependencies {
        guard let other = targets[dependency] else { continue }
        let otherLayer = try #require(Self.layers.firstIndex(of: other.layer))
        #expect(
          otherLayer <= layer,
          "\(name) (\(target.layer)) depends on \(dependency) (\(other.layer)), a later layer")
      }
    }
    // The domain never on a door: no *Commands module, no server, no web side.
    for (name, target) in targets where target.layer == "Domain" {
      let doors = target.dependencies.filter { targets[$0]?.layer == "Doors" }
      #expect(doors.isEmpty, "\(name) depends on \(doors)")
    }
  }

  /// Every target `name` depends on, directly or not.
  static func closure(
    _ name: String, _ targets: [String: (layer: String, dependencies: [String])]
  ) -> Set<String> {
    var seen: Set<String> = []
    var next = [name]
    while let current = next.popLast() {
      for dependency in targets[current]?.dependencies ?? [] where seen.insert(dependency).inserted
      {
        next.append(dependency)
      }
    }
    return seen
  }

  @Test("the store's base knows nothing of the keyspace, and no domain module reaches it")
  func domainNeverReachesTheKeyspace() throws {
    let targets = try Self.targets()
    let keyspace: Set = ["Keyspace", "KeyspaceStore"]
    #expect(Self.closure("Store", targets).isDisjoint(with: keyspace))
    let domain = targets.filter { $0.value.layer == "Domain" }.keys
    #expect(domain.count >= 10)
    for name in domain {
      let reached = Self.closure(name, targets).intersection(keyspace)
      #expect(reached.isEmpty, "\(name) reaches \(reached)")
    }
  }

  /// The domain modules that keep state, each behind its storage protocol (`CardStorage`,
  /// `AccountStorage`...), handing its writes to the seam (`Durability`).
  static let stateful = [
    "Accounts", "Cards", "Documents", "Pins", "Assets", "People", "Venues",
  ]

  @Test("no domain module depends on a store or an SQL library: their SQL is in DomainStorage")
  func storageSeam() throws {
    let targets = try Self.targets()
    let domain = targets.filter { $0.value.layer == "Domain" }
    #expect(domain.count >= 10)
    for (name, target) in domain {
      let stores = Set(target.dependencies).intersection(["Store", "KeyspaceStore", "GRDB"])
      #expect(stores.isEmpty, "\(name) depends on \(stores)")
    }
    for name in Self.stateful {
      let target = try #require(domain[name])
      #expect(target.dependencies.contains("Durability"), "\(name) hands writes to the seam")
    }
    let sqlite = try #require(targets["SQLiteDomainStorage"])
    #expect(
      sqlite.layer == "DomainStorage"
        && Set(Self.stateful + ["GeocoderClients"]).isSubset(of: sqlite.dependencies))
  }

  @Test("the domain's errors are data: no RESP error code is written in Sources/Domain")
  func domainWritesNoErrorLines() throws {
    let domain = Self.root.appendingPathComponent("Sources/Domain")
    let files = try #require(FileManager.default.enumerator(atPath: domain.path))
      .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
    #expect(files.count > 50)
    let code = try Regex(
      #""(NOPERM|ERR|INVALID|LIMIT|NOTFOUND|INACTIVE|WRONGPASS|QUOTA|BUSY)[ :"]"#)
    for file in files {
      let text = try String(contentsOf: domain.appendingPathComponent(file), encoding: .utf8)
      #expect(text.firstMatch(of: code) == nil, "\(file) writes an error line")
    }
  }

  @Test("the daemon links no benchmark, load generator or fuzzer; cardatlas-bench links them")
  func daemonLinksNoBenchmarks() throws {
    let targets = try Self.targets()
    func closure(_ name: String) -> Set<String> { Self.closure(name, targets) }
    let daemon = closure("CardAtlasCLI")
    #expect(daemon.contains("Server") && daemon.contains("WebPages"))
    #expect(daemon.isDisjoint(with: Self.benchmarks), "\(daemon.intersection(Self.benchmarks))")
    #expect(closure("CardAtlasBench").isSuperset(of: ["IndexBench", "CardBench", "LoadGen"]))
  }

  @Test("docs/PROTOCOL.md's command index names every command the server answers, and no other")
  func commandIndexIsComplete() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-commands-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(directory: directory)
    guard case .array(let commands) = try RESPConnection(port: server.port).command("COMMAND").value
    else { throw RESPConnection.Failed(description: "COMMAND is not an array") }
    let answered = Set(
      commands.compactMap { command -> String? in
        guard case .array(let info) = command, case .bulkString(let name)? = info.first else {
          return nil
        }
        return String(buffer: name).uppercased()
      })
    #expect(answered.count > 100)
    let protocolText = try String(
      contentsOf: Self.root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    let index = protocolText.components(separatedBy: "## Command index")[1]
      .components(separatedBy: "\n## ")[0]
    var listed: Set<String> = []
    for line in index.split(separator: "\n") where line.hasPrefix("| [") {
      let cells = line.split(separator: "|")
      for name in cells[1].split(separator: ",") {
        listed.insert(name.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]))
      }
    }
    #expect(
      answered.subtracting(listed).isEmpty, "not in the index: \(answered.subtracting(listed))")
    #expect(listed.subtracting(answered).isEmpty, "not answered: \(listed.subtracting(answered))")
  }
}
