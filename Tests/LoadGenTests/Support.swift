import Foundation
import NIOPosix
import RESP
import RedisTestSupport
import Testing

@testable import LoadGen

/// A throwaway redis-server and its address; fails the test (rather than skipping it) when
/// redis-server is not installed, so CI cannot silently lose these tests.
func startRedis() throws -> (RedisProcess, ServerAddress) {
  let redis = try RedisProcess()
  return (redis, ServerAddress(host: "127.0.0.1", port: Int(redis.port)))
}

/// A short run: a few thousand requests from a few connections, a small request pool, no progress
/// lines.
func smallConfiguration(
  _ workload: Workload, target: ServerAddress, compare: ServerAddress? = nil,
  requests: Int? = 3000, duration: Double? = nil, points: Int? = 2000, center: LonLat? = nil,
  clients: Int = 4, pipeline: Int = 8, key: String = "bench:points", baseline: Workload? = nil,
  rounds: Int = 1
) -> LoadConfiguration {
  LoadConfiguration(
    target: target, compare: compare, clients: clients, pipeline: pipeline, requests: requests,
    duration: duration, points: points, seed: 7,
    parameters: WorkloadParameters(workload: workload, key: key, center: center),
    loadBatch: 500, progressInterval: nil, poolSize: 1024, baseline: baseline, rounds: rounds)
}

/// p50 ≤ p90 ≤ p99 ≤ p99.9 ≤ max, all above zero for a run with replies.
func expectMonotone(_ summary: LatencySummary, sourceLocation: SourceLocation = #_sourceLocation) {
  let values = [summary.min, summary.p50, summary.p90, summary.p99, summary.p999, summary.max]
  #expect(values.allSatisfy { $0 > 0 }, "\(summary)", sourceLocation: sourceLocation)
  #expect(
    zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(summary)",
    sourceLocation: sourceLocation)
  #expect(
    summary.min <= summary.mean && summary.mean <= summary.max, "\(summary)",
    sourceLocation: sourceLocation)
}

/// A RESP connection for checks, on its own small event loop group.
func withClient<T: Sendable>(
  _ server: ServerAddress, _ body: (RESPClient) async throws -> T
) async throws -> T {
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  do {
    let client = try await RESPClient.connect(to: server, group: group)
    let result = try await body(client)
    await client.close()
    try await group.shutdownGracefully()
    return result
  } catch {
    try? await group.shutdownGracefully()
    throw error
  }
}

/// GEOPOS of p0 … p(count − 1) on the server, as (longitude, latitude).
func memberPositions(count: Int, on server: ServerAddress) async throws -> [(Double, Double)] {
  let members = (0..<count).map { "p\($0)" }
  let reply = try await withClient(server) { client in
    try await client.send([["GEOPOS", "bench:points"] + members])[0]
  }
  guard case .array(let pairs) = reply, pairs.count == count else {
    throw PositionsUnreadable(reply: "\(reply)")
  }
  return try pairs.map { pair in
    guard case .array(let lonLat) = pair, lonLat.count == 2,
      case .bulkString(let lonText) = lonLat[0], case .bulkString(let latText) = lonLat[1],
      let lon = Double(String(buffer: lonText)), let lat = Double(String(buffer: latText))
    else { throw PositionsUnreadable(reply: "\(pair)") }
    return (lon, lat)
  }
}

struct PositionsUnreadable: Error {
  var reply: String
}

/// Metres between two nearby (longitude, latitude) points, on a local flat approximation.
func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
  let dLat = (a.1 - b.1) * 111_195
  let dLon = (a.0 - b.0) * 111_195 * cos(b.1 * .pi / 180)
  return (dLat * dLat + dLon * dLon).squareRoot()
}
