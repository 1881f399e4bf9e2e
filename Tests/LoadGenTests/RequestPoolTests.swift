import Datasets
import NIOCore
import RESP
import RESPClient
import Testing

@testable import LoadGen

/// The requests a run sends, checked without a server: parsed back with the server-side parser.
@Suite struct RequestPoolTests {
  /// Every request of a pool window, as words.
  func commands(_ buffer: ByteBuffer) throws -> [[String]] {
    var parser = RESPRequestParser()
    parser.append(buffer)
    var commands: [[String]] = []
    while let command = try parser.next() { commands.append(command.map { String(buffer: $0) }) }
    #expect(parser.bufferedByteCount == 0)
    return commands
  }

  static let generator = Result { try DatasetGenerator() }

  func data(_ count: Int) throws -> (members: PointSet, centres: PointSet) {
    let generator = try Self.generator.get()
    return (
      PointSet.realistic(count: count, seed: 3, generator: generator),
      PointSet.queryCentres(count: count, seed: 3, generator: generator)
    )
  }

  @Test func searchRequestsHaveTheDocumentedShape() throws {
    let (members, centres) = try data(100)
    let expectations: [(WorkloadParameters, [String])] = [
      (
        WorkloadParameters(workload: .radius, key: "k", radiusKm: 1.5),
        ["BYRADIUS", "1.5", "km", "ASC", "COUNT", "10"]
      ),
      (
        WorkloadParameters(workload: .knn, key: "k", k: 7, knnRadiusKm: 50),
        ["BYRADIUS", "50", "km", "ASC", "COUNT", "7"]
      ),
      (
        WorkloadParameters(workload: .box, key: "k", boxWidthKm: 2, boxHeightKm: 0.5),
        ["BYBOX", "2", "0.5", "km", "ASC", "COUNT", "10"]
      ),
    ]
    for (parameters, tail) in expectations {
      let pool = RequestPool.make(
        parameters: parameters, pipeline: 4, seed: 3, members: members, centres: centres,
        size: 100)
      #expect(pool.count == 100)
      let all = try commands(pool.window(from: 0, count: 100))
      #expect(all.count == 100)
      for (index, command) in all.enumerated() {
        #expect(Array(command.prefix(3)) == ["GEOSEARCH", "k", "FROMLONLAT"])
        #expect(Array(command.dropFirst(5)) == tail)
        #expect(Double(command[3]).map { abs($0 - centres.longitudes[index]) < 1e-6 } == true)
        #expect(Double(command[4]).map { abs($0 - centres.latitudes[index]) < 1e-6 } == true)
      }
    }
  }

  @Test func aFixedCentreOrPingIsOneRequestRepeated() throws {
    let tokyo = try LonLat(parsing: "139.6917,35.6895")
    let search = RequestPool.make(
      parameters: WorkloadParameters(workload: .radius, key: "bench:points", center: tokyo),
      pipeline: 16, seed: 1, members: nil, centres: nil)
    #expect(search.count == 16)
    let requests = try commands(search.window(from: 0, count: 16))
    #expect(Set(requests).count == 1)
    #expect(
      requests[0] == [
        "GEOSEARCH", "bench:points", "FROMLONLAT", "139.6917", "35.6895", "BYRADIUS", "1", "km",
        "ASC", "COUNT", "10",
      ])
    let ping = RequestPool.make(
      parameters: WorkloadParameters(workload: .ping), pipeline: 3, seed: 1, members: nil,
      centres: nil)
    #expect(try commands(ping.window(from: 0, count: 3)) == [["PING"], ["PING"], ["PING"]])
    // A partial window (the last of a --requests budget) is a prefix.
    #expect(try commands(ping.window(from: 1, count: 2)) == [["PING"], ["PING"]])
  }

  @Test func movesComeInPairsThatCancelOut() throws {
    let (members, _) = try data(500)
    let moves = RequestPool.moves(1000, key: "k", members: members, seed: 9)
    #expect(moves.count == 1000)
    for index in 0..<500 {
      let plus = moves[index]
      let minus = moves[index + 500]
      #expect(plus[0] == "GEOADD" && plus[1] == "k")
      #expect(plus[4] == minus[4], "the same member")
      let member = try #require(Int(plus[4].dropFirst()))
      #expect(plus[4].hasPrefix("p") && (0..<500).contains(member))
      let lon = (Double(plus[2])! + Double(minus[2])!) / 2
      let lat = (Double(plus[3])! + Double(minus[3])!) / 2
      #expect(abs(lon - members.longitudes[member]) < 1e-6)
      #expect(abs(lat - members.latitudes[member]) < 1e-6)
      let step = abs(Double(plus[3])! - members.latitudes[member]) * 111_195
      #expect(step <= 100.01, "moves are small")
    }
  }

  @Test func mixedIsAboutNinetyPercentSearches() throws {
    let (members, centres) = try data(1000)
    let pool = RequestPool.make(
      parameters: WorkloadParameters(workload: .mixed, key: "k"), pipeline: 16, seed: 5,
      members: members, centres: centres, size: 4096)
    let all = try commands(pool.window(from: 0, count: pool.count))
    #expect(all.count == 4096)
    let adds = all.count { $0[0] == "GEOADD" }
    let searches = all.count { $0[0] == "GEOSEARCH" }
    #expect(adds + searches == 4096)
    // 10 % of 4096 is 410; a binomial spread of ±5 standard deviations is ±96.
    #expect((314...506).contains(adds), "\(adds) adds")
    #expect(all.contains { $0[0] == "GEOSEARCH" && $0[5] == "BYRADIUS" })
  }

  @Test func poolsAreTheSameForTheSameSeed() throws {
    let (members, centres) = try data(300)
    func pool(_ seed: UInt64) -> ByteBuffer {
      let pool = RequestPool.make(
        parameters: WorkloadParameters(workload: .mixed), pipeline: 8, seed: seed,
        members: members, centres: centres, size: 300)
      return pool.window(from: 0, count: pool.count)
    }
    #expect(pool(1) == pool(1))
    #expect(pool(1) != pool(2))
  }

  @Test func numbersAreFixedPointWithoutExponents() {
    #expect(CommandEncoding.number(139.6917) == "139.6917")
    #expect(CommandEncoding.number(-0.00001) == "-0.00001")
    #expect(CommandEncoding.number(0.000000004) == "0")
    #expect(CommandEncoding.number(-180) == "-180")
    #expect(CommandEncoding.number(35.68950001) == "35.6895")
    #expect(CommandEncoding.number(1e-7) == "0.0000001")
    #expect(CommandEncoding.number(2.5, decimals: 6) == "2.5")
  }

  @Test func addressesAndCentresParse() throws {
    #expect(
      try ServerAddress(parsing: "127.0.0.1:6379") == ServerAddress(host: "127.0.0.1", port: 6379))
    #expect(try ServerAddress(parsing: "[::1]:7878") == ServerAddress(host: "::1", port: 7878))
    #expect(try ServerAddress(parsing: "[::1]:7878").description == "[::1]:7878")
    #expect(try ServerAddress(parsing: "localhost:1").description == "localhost:1")
    for bad in ["6379", "host:", ":6379", "host:0", "host:65536", "host:x"] {
      #expect(throws: LoadGenError.self, "\(bad)") { try ServerAddress(parsing: bad) }
    }
    #expect(
      try LonLat(parsing: "139.6917,35.6895") == LonLat(longitude: 139.6917, latitude: 35.6895))
    #expect(
      try LonLat(parsing: "-0.1276, 51.5072") == LonLat(longitude: -0.1276, latitude: 51.5072))
    for bad in ["139.6917", "a,b", "181,0", "0,86", "1,2,3"] {
      #expect(throws: LoadGenError.self, "\(bad)") { try LonLat(parsing: bad) }
    }
  }

  @Test func configurationDefaultsAndChecks() {
    let radius = LoadConfiguration()
    #expect(radius.target == ServerAddress(host: "127.0.0.1", port: 7878))
    #expect(radius.clients == 50 && radius.pipeline == 16)
    #expect(radius.points == 1_000_000)
    #expect(radius.requestLimit == 100_000)
    #expect(radius.parameters.key == "bench:points")
    let ping = LoadConfiguration(parameters: WorkloadParameters(workload: .ping))
    #expect(ping.points == 0)
    let timed = LoadConfiguration(duration: 5)
    #expect(timed.requestLimit == nil)
    let both = LoadConfiguration(requests: 10, duration: 5)
    #expect(both.requestLimit == 10)
    #expect(throws: LoadGenError.invalidArgument("--clients must be at least 1")) {
      try LoadConfiguration(clients: 0).validate()
    }
    #expect(throws: LoadGenError.invalidArgument("--pipeline must be at least 1")) {
      try LoadConfiguration(pipeline: 0).validate()
    }
    #expect(throws: LoadGenError.self) { try LoadConfiguration(duration: -1).validate() }
    #expect(throws: LoadGenError.self) {
      try LoadConfiguration(parameters: WorkloadParameters(workload: .knn, k: 0)).validate()
    }
  }

  @Test func commandTemplatesDescribeTheWorkload() {
    #expect(
      WorkloadParameters(workload: .radius).commandTemplate
        == "GEOSEARCH bench:points FROMLONLAT <lon> <lat> BYRADIUS 1 km ASC COUNT 10")
    #expect(
      WorkloadParameters(workload: .knn, center: LonLat(longitude: 139.6917, latitude: 35.6895))
        .commandTemplate
        == "GEOSEARCH bench:points FROMLONLAT 139.6917 35.6895 BYRADIUS 50 km ASC COUNT 10")
    #expect(
      WorkloadParameters(workload: .mixed).commandTemplate
        == "90% GEOSEARCH bench:points FROMLONLAT <lon> <lat> BYRADIUS 1 km ASC COUNT 10 + 10% GEOADD bench:points <lon> <lat> <member>"
    )
    #expect(WorkloadParameters(workload: .ping).commandTemplate == "PING")
  }
}
