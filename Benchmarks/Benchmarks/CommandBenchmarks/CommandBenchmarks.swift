import Benchmark
import Commands
import NIOCore
import RESP

// The server's CPU cost per command without the network: what a connection does with a request
// once its bytes have arrived, on a keyspace holding N points (N from CARDATLAS_BENCH_POINTS,
// default 1,000,000): see README.md beside Package.swift.
//
// One command is: the request's bytes (pre-encoded RESP) appended to a RESPRequestParser and
// parsed, its arguments run by CommandProcessor.execute, and the reply encoded into a reused
// buffer, as ConnectionHandler does. Left out: the socket reads and writes, the event loop,
// the statistics, and for writes the store (the changes GEOADD returns are dropped).
//
// Every benchmark's setup builds what it needs (Fixtures, once per process, untimed) and runs
// each of its requests once; each iteration of its body is `scalingFactor` commands, so the
// figures printed (marked *) are per command. Varied requests cycle through a pool of 10,000.

let commandMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: commandMetrics, warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(2))

  // MARK: Searches, as `cardatlas-bench load --workload radius` sends them

  commandBenchmark("GEOSEARCH 1 km COUNT 10 ASC") {
    [Fixtures.search(longitude: 139.6917, latitude: 35.6895, radiusKm: 1)]
  }
  commandBenchmark("GEOSEARCH 1 km COUNT 10 ASC WITHDIST WITHCOORD") {
    [
      Fixtures.search(
        longitude: 139.6917, latitude: 35.6895, radiusKm: 1, extra: ["WITHDIST", "WITHCOORD"])
    ]
  }
  commandBenchmark("GEOSEARCH 10 km COUNT 10 ASC") {
    [Fixtures.search(longitude: 139.6917, latitude: 35.6895, radiusKm: 10)]
  }
  // From 10,000 centres drawn like the points, so that the caches are not always hot.
  commandBenchmark("GEOSEARCH 1 km, random centres") {
    zip(Fixtures.centres.longitudes, Fixtures.centres.latitudes).map {
      Fixtures.search(longitude: $0, latitude: $1, radiusKm: 1)
    }
  }

  // MARK: The floor: a command that does nothing (on an empty keyspace)

  commandBenchmark("PING", processor: Fixtures.emptyProcessor) { [Fixtures.encode(["PING"])] }

  // MARK: A write, without the store

  // One member moved up to 100 m per command (and moved back half a pool later).
  commandBenchmark("GEOADD move") { Fixtures.moves }
}

/// Registers a command benchmark: its setup makes `requests` (building the fixtures they touch)
/// and the processor, then each command runs the next request, cycling through them.
func commandBenchmark(
  _ name: String, processor: @autoclosure @escaping () -> CommandProcessor = Fixtures.processor,
  requests: @escaping () -> [ByteBuffer]
) {
  Benchmark(name) { (benchmark, loop: CommandLoop) in
    for _ in benchmark.scaledIterations { loop.run() }
    blackHole(loop.output.readableBytes)
  } setup: {
    try Fixtures.requireData()
    return try CommandLoop(processor: processor(), requests: requests())
  }
}

/// A connection's worth of command handling: a request parser, a session and an output buffer,
/// all reused from one command to the next, and a cursor into the requests it cycles through.
final class CommandLoop {
  let processor: CommandProcessor
  let requests: [ByteBuffer]
  private var parser = RESPRequestParser()
  private var session = Session(id: 1, authenticated: true)
  /// The last command's reply, encoded.
  private(set) var output = ByteBuffer()
  private var cursor = 0

  /// Runs every request once, which checks that none fails (a moving pool ends where it
  /// started: each move by +d is followed, half a pool later, by the move back).
  init(processor: CommandProcessor, requests: [ByteBuffer]) throws {
    precondition(!requests.isEmpty, "no requests")
    self.processor = processor
    self.requests = requests
    output.reserveCapacity(4096)
    for request in requests {
      run()
      if output.readableBytesView.first == UInt8(ascii: "-") {
        throw CommandFailed(request: String(buffer: request), reply: String(buffer: output))
      }
    }
  }

  /// Parses, runs and encodes the reply of the next request.
  @inline(__always)
  func run() {
    let request = requests[cursor]
    cursor = cursor + 1 == requests.count ? 0 : cursor + 1
    parser.append(request)
    guard let arguments = try! parser.next() else { fatalError("incomplete request") }
    let outcome = processor.execute(Arguments(arguments), session: &session)
    output.clear()
    outcome.reply.write(to: &output, protocol: session.protocolVersion)
    blackHole(outcome)
  }
}

struct CommandFailed: Error, CustomStringConvertible {
  let request: String
  let reply: String

  var description: String { "\(request.debugDescription) failed: \(reply.debugDescription)" }
}
