import Datasets
import Dispatch
import Histogram
import NIOCore
import NIOPosix
import RESP
import RESPClient

/// `cardatlas-bench load`: loads the same points into each server, then runs the identical
/// pre-encoded workload (and baseline) against each in turn, target first, round after round,
/// and reports throughput and latency.
public struct LoadBenchmark: Sendable {
  public let configuration: LoadConfiguration
  private let log: @Sendable (String) -> Void

  /// - Parameter log: progress and setup lines (the CLI sends them to stderr).
  public init(
    configuration: LoadConfiguration, log: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.configuration = configuration
    self.log = log
  }

  public func run() async throws -> LoadReport {
    let config = configuration
    try config.validate()
    let parameters = config.parameters
    let workloads = config.workloads

    // The data: points to load and to move, centres to search from.
    var members: PointSet?
    var centres: PointSet?
    let needsMembers = config.points > 0 || workloads.contains { $0 == .add || $0 == .mixed }
    let needsCentres =
      parameters.center == nil
      && workloads.contains {
        [.radius, .knn, .box, .mixed, .cards, .pins, .presence].contains($0)
      }
    if needsMembers || needsCentres {
      let generator = try DatasetGenerator()
      if needsMembers {
        log("generating \(grouped(config.memberCount)) realistic points (seed \(config.seed))")
        members = PointSet.realistic(
          count: config.memberCount, seed: config.seed, generator: generator)
      }
      if needsCentres {
        centres = PointSet.queryCentres(
          count: config.poolSize, seed: config.seed, generator: generator)
      }
    }
    // The checkin workload's pool is made once its venues are (their codes).
    var pools = workloads.map { workload -> RequestPool? in
      guard workload != .checkin else { return nil }
      var shape = parameters
      shape.workload = workload
      return RequestPool.make(
        parameters: shape, pipeline: config.pipeline, seed: config.seed, members: members,
        centres: centres, size: config.poolSize)
    }

    let group = MultiThreadedEventLoopGroup(numberOfThreads: config.threads ?? System.coreCount)
    do {
      var loads: [PointLoad?] = Array(repeating: nil, count: config.servers.count)
      // Per server: the sessions the `cards`, `pins` and `checkin` workloads' connections
      // resume, one per account.
      var signIns: [[ByteBuffer]] = Array(repeating: [], count: config.servers.count)
      if config.points > 0, let members {
        for (index, server) in config.servers.enumerated() {
          loads[index] = try await loadPoints(members, into: server, group: group)
          guard let records = workloads.first(where: \.makesRecords) else { continue }
          let loader = CardLoader(
            points: members, perAccount: config.cardsPerAccount, seed: config.seed,
            parallel: config.clients, window: 2 * config.pipeline, pins: records == .pins,
            log: log)
          let (cards, tokens) = try await loader.load(into: server, group: group)
          loads[index]?.cards = cards
          signIns[index] = tokens.map { CommandEncoding.encode([["SESSION.RESUME", $0]]) }
        }
      }
      // Per server: the `presence` workload's sessions, an account per connection.
      var presenceSignIns: [[ByteBuffer]] = Array(repeating: [], count: config.servers.count)
      if workloads.contains(.presence) {
        for (index, server) in config.servers.enumerated() {
          let loader = CardLoader(
            points: PointSet(longitudes: [], latitudes: []), perAccount: 1, seed: config.seed,
            parallel: config.clients, window: 1, pins: false, log: log)
          presenceSignIns[index] = try await loader.sessions(
            config.clients, on: server, group: group
          )
          .map { CommandEncoding.encode([["SESSION.RESUME", $0]]) }
        }
      }
      if let checkin = workloads.firstIndex(of: .checkin) {
        let loader = VenueLoader(
          venues: config.venues, visitors: config.clients, seed: config.seed,
          poolSize: config.poolSize, log: log)
        let (tokens, requests) = try await loader.load(into: config.target, group: group)
        signIns[0] = tokens.map { CommandEncoding.encode([["SESSION.RESUME", $0]]) }
        pools[checkin] = RequestPool(requests: requests)
      }
      // results[workload][server], rounds added up. The first round runs the servers in order,
      // so appending fills each workload's row server by server.
      var results: [[TargetResult]] = workloads.map { _ in [] }
      var order: [(server: Int, workload: Int)] = []
      for server in config.servers.indices {
        for workload in workloads.indices { order.append((server, workload)) }
      }
      for round in 0..<config.rounds {
        let budget = config.budget(round: round)
        for (server, workload) in round % 2 == 0 ? order : order.reversed() {
          let address = config.servers[server]
          let role: TargetResult.Role = server == 0 ? .target : .compare
          let roundText = config.rounds > 1 ? ", round \(round + 1) of \(config.rounds)" : ""
          log(
            "\(workloads[workload].rawValue) → \(address) (\(role.rawValue)): "
              + "\(config.clients) clients, pipeline \(config.pipeline)\(roundText)")
          let sent = round == 0 ? 0 : results[workload][server].requests
          let result = try await measure(
            address, role: role, workload: workloads[workload], pool: pools[workload]!,
            requests: budget.requests, duration: budget.duration, resume: sent / config.clients,
            preambles: workloads[workload].makesRecords || workloads[workload] == .checkin
              ? signIns[server] : workloads[workload] == .presence ? presenceSignIns[server] : [],
            group: group)
          if round == 0 {
            results[workload].append(result)
          } else {
            results[workload][server].add(round: result)
          }
        }
      }
      try await group.shutdownGracefully()
      var targets = results[0]
      for index in targets.indices { targets[index].load = loads[index] }
      return LoadReport(
        configuration: config, targets: targets, baselines: results.count > 1 ? results[1] : [])
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
  }

  // MARK: Loading

  /// Replaces `key` on the server with the points, named p0, p1, … in order, by GEOADDs of
  /// `loadBatch` points with a few in flight, then checks ZCARD.
  func loadPoints(_ points: PointSet, into server: ServerAddress, group: any EventLoopGroup)
    async throws -> PointLoad
  {
    let key = configuration.parameters.key
    let batch = configuration.loadBatch
    log("loading \(grouped(points.count)) points into \(key) on \(server)")
    let client = try await RESPClient.connect(to: server, group: group)
    do {
      let started = DispatchTime.now().uptimeNanoseconds
      let deleted = try await client.send("DEL", key)
      if case .error(let text) = deleted {
        throw LoadGenError.setupFailed(server: "\(server)", reason: "DEL \(key) failed: \(text)")
      }
      var inFlight: [EventLoopFuture<[RESPValue]>] = []
      var next = 0
      var lastLog = started
      while next < points.count || !inFlight.isEmpty {
        if next < points.count && inFlight.count < 4 {
          var arguments = ["GEOADD", key]
          let end = min(points.count, next + batch)
          arguments.reserveCapacity(2 + 3 * (end - next))
          for i in next..<end {
            arguments.append(CommandEncoding.number(points.longitudes[i]))
            arguments.append(CommandEncoding.number(points.latitudes[i]))
            arguments.append("p\(i)")
          }
          next = end
          inFlight.append(client.submit(CommandEncoding.encode([arguments]), count: 1))
          continue
        }
        let replies = try await inFlight.removeFirst().get()
        if case .error(let text) = replies[0] {
          throw LoadGenError.setupFailed(server: "\(server)", reason: "GEOADD failed: \(text)")
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if let interval = configuration.progressInterval, Double(now - lastLog) >= interval * 1e9 {
          lastLog = now
          log("  \(grouped(next - inFlight.count * batch)) points")
        }
      }
      let cardinality = try await client.send("ZCARD", key)
      guard case .integer(let count) = cardinality, count == points.count else {
        throw LoadGenError.setupFailed(
          server: "\(server)",
          reason: "ZCARD \(key) answered \(cardinality) after loading \(points.count) points")
      }
      let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
      log("  loaded in \(formatted(seconds, decimals: 2)) s")
      await client.close()
      return PointLoad(points: count, seconds: seconds)
    } catch {
      await client.close()
      throw error
    }
  }

  // MARK: Measuring

  /// One measurement: `requests` (or `duration` seconds) of `workload` on `server`, from fresh
  /// connections, each starting `resume` requests past its place in the first round.
  func measure(
    _ server: ServerAddress, role: TargetResult.Role, workload: Workload, pool: RequestPool,
    requests: Int?, duration: Double?, resume: Int, preambles: [ByteBuffer] = [],
    group: any EventLoopGroup
  ) async throws -> TargetResult {
    let config = configuration
    let state = RunState(requests: requests)
    let name = server.description
    var promises: [EventLoopPromise<ConnectionResult>] = []
    var readies: [EventLoopPromise<Void>] = []
    var connecting: [EventLoopFuture<any Channel>] = []
    for index in 0..<config.clients {
      let loop = group.next()
      let promise = loop.makePromise(of: ConnectionResult.self)
      promises.append(promise)
      let ready = loop.makePromise(of: Void.self)
      readies.append(ready)
      let preamble = preambles.isEmpty ? nil : preambles[index % preambles.count]
      // Connections start spread over the pool, so they do not send the same requests together,
      // and each round goes on where the last left off (a move sent again would not move).
      let first =
        pool.count > config.pipeline ? index * (pool.count / config.clients) + resume : 0
      let pipeline = config.pipeline
      let bootstrap = ClientBootstrap.pipelined(group: loop) {
        LoadConnectionHandler(
          pool: pool, pipeline: pipeline, firstRequest: first, state: state, server: name,
          promise: promise, preamble: preamble, ready: ready)
      }
      connecting.append(bootstrap.connect(host: server.host, port: server.port))
    }
    var channels: [any Channel] = []
    var connectError: (any Error)?
    for (index, future) in connecting.enumerated() {
      do {
        channels.append(try await future.get())
      } catch {
        connectError = connectError ?? error
        promises[index].fail(error)
        readies[index].fail(error)
      }
    }
    // Signed in (the preambles answered) before the clock starts.
    for ready in readies where connectError == nil {
      do { try await ready.futureResult.get() } catch { connectError = error }
    }
    func closeAll() async {
      for channel in channels { try? await channel.close() }
    }
    if let connectError {
      await closeAll()
      for promise in promises { _ = try? await promise.futureResult.get() }
      throw LoadGenError.connectFailed(server: name, reason: "\(connectError)")
    }

    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = duration.map { start + UInt64($0 * 1e9) }
    for channel in channels {
      channel.pipeline.fireUserInboundEventTriggered(LoadStart(deadline: deadline))
    }
    var lastCount = 0
    var lastChange = start
    var lastPrint = start
    var printedCount = 0
    let stall = UInt64(config.stallTimeout * 1e9)
    while state.stoppedConnections.load(ordering: .relaxed) < config.clients {
      try? await Task.sleep(nanoseconds: 20_000_000)
      let now = DispatchTime.now().uptimeNanoseconds
      let done = state.completed.load(ordering: .relaxed)
      if done != lastCount {
        lastCount = done
        lastChange = now
      } else if now - lastChange > stall {
        await closeAll()
        for promise in promises { _ = try? await promise.futureResult.get() }
        throw LoadGenError.stalled(server: name, seconds: config.stallTimeout, completed: done)
      }
      if let interval = config.progressInterval, Double(now - lastPrint) >= interval * 1e9 {
        let rate = Double(done - printedCount) / (Double(now - lastPrint) / 1e9)
        log(
          "  \(formatted(Double(now - start) / 1e9, decimals: 1)) s: \(grouped(done)) requests, "
            + "\(grouped(Int(rate.rounded()))) req/s")
        lastPrint = now
        printedCount = done
      }
    }
    var outcomes: [ConnectionResult] = []
    var failure: (any Error)?
    for promise in promises {
      do { outcomes.append(try await promise.futureResult.get()) } catch {
        failure = failure ?? error
      }
    }
    await closeAll()
    if let failure { throw failure }

    var histogram = Histogram<UInt64>(
      lowestDiscernibleValue: 1, highestTrackableValue: LoadConnectionHandler.highestLatency,
      numberOfSignificantValueDigits: .three)
    var samples: [String: Int] = [:]
    var replies = 0
    var errors = 0
    var finished = start
    for outcome in outcomes {
      histogram.add(outcome.histogram)
      replies += outcome.replies
      errors += outcome.errors
      for (text, count) in outcome.errorSamples { samples[text, default: 0] += count }
      finished = max(finished, outcome.finishedAt)
    }
    let seconds = Double(finished - start) / 1e9
    let result = TargetResult(
      role: role, server: server, workload: workload, requests: replies, errors: errors,
      errorSamples: samples, seconds: seconds, latency: histogram)
    log(
      "  done: \(grouped(replies)) requests in \(formatted(seconds, decimals: 2)) s, "
        + "\(grouped(Int(result.throughput.rounded()))) req/s"
        + (errors > 0 ? ", \(grouped(errors)) ERROR REPLIES" : ""))
    return result
  }
}
