/// Everything a `bench load` run needs.
public struct LoadConfiguration: Sendable {
  /// The server measured.
  public var target: ServerAddress
  /// A second server that gets the identical workload in the same run, for ratios.
  public var compare: ServerAddress?
  /// Connections per server.
  public var clients: Int
  /// Requests each connection writes at once before waiting for all their replies (redis-benchmark's
  /// `-P`).
  public var pipeline: Int
  /// Requests per server (and per workload, with a baseline), over all rounds. With `duration`
  /// too, each round stops at whichever comes first; with neither, `defaultRequests`.
  public var requests: Int?
  /// Seconds per server (and per workload, with a baseline), over all rounds.
  public var duration: Double?
  /// Points loaded into `parameters.key` on every server before timing (the key is replaced);
  /// 0 skips loading.
  public var points: Int
  /// Seed of the points, the query centres, the moves and the mix.
  public var seed: UInt64
  public var parameters: WorkloadParameters
  /// Points per GEOADD while loading.
  public var loadBatch: Int
  /// Give up when no reply arrives for this many seconds.
  public var stallTimeout: Double
  /// Seconds between progress lines; nil for none.
  public var progressInterval: Double?
  /// Distinct requests pre-encoded when they vary (centres, moves).
  public var poolSize: Int
  /// Event loop threads of the generator; nil for one per core.
  public var threads: Int?
  /// A second workload measured on every server in the same run, for the ratio workload ÷
  /// baseline (a search against `ping`: what a query costs beyond a round trip).
  public var baseline: Workload?
  /// The measurements are split into this many rounds; odd rounds run the even rounds' order
  /// backwards (servers, and workload against baseline), so a drift in the machine's speed
  /// weighs on every figure alike instead of on whichever ran last.
  public var rounds: Int
  /// `cards`: cards per account made before timing (the server's `--pro-card-limit` must allow
  /// them); `pins`: pins per account. Fewer accounts are quicker to make (each costs a password hash).
  public var cardsPerAccount: Int
  /// `checkin`: venues made before timing.
  public var venues = 1000

  public static let defaultRequests = 100_000
  /// Distinct requests pre-encoded when they vary: enough that the same centres and moves come
  /// back rarely, small enough (a few MB) to build in a blink.
  public static let defaultPoolSize = 1 << 16
  /// Points in a run that does not say, for the workloads that use points.
  public static let defaultPoints = 1_000_000
  /// Members moved by `add` and `mixed` when no points are loaded (`points` 0): p0 … p9999 of the
  /// seed's dataset, created by the first moves if they are not there.
  public static let defaultMembers = 10_000

  public init(
    target: ServerAddress = ServerAddress(host: "127.0.0.1", port: 7878),
    compare: ServerAddress? = nil, clients: Int = 50, pipeline: Int = 16, requests: Int? = nil,
    duration: Double? = nil, points: Int? = nil, seed: UInt64 = 1,
    parameters: WorkloadParameters = WorkloadParameters(workload: .radius),
    loadBatch: Int = 1000, stallTimeout: Double = 10, progressInterval: Double? = 1,
    poolSize: Int = Self.defaultPoolSize, threads: Int? = nil, baseline: Workload? = nil,
    rounds: Int = 1, cardsPerAccount: Int = 1000
  ) {
    self.target = target
    self.compare = compare
    self.clients = clients
    self.pipeline = pipeline
    self.requests = requests
    self.duration = duration
    let usesPoints = parameters.workload.usesPoints || baseline?.usesPoints == true
    self.points = points ?? (usesPoints ? Self.defaultPoints : 0)
    self.seed = seed
    self.parameters = parameters
    self.loadBatch = loadBatch
    self.stallTimeout = stallTimeout
    self.progressInterval = progressInterval
    self.poolSize = poolSize
    self.threads = threads
    self.baseline = baseline
    self.rounds = rounds
    self.cardsPerAccount = cardsPerAccount
  }

  /// The request budget per server: nil when only `duration` bounds the run.
  public var requestLimit: Int? {
    requests ?? (duration == nil ? Self.defaultRequests : nil)
  }

  /// The servers, target first.
  public var servers: [ServerAddress] { [target] + (compare.map { [$0] } ?? []) }

  /// The workload, then the baseline if any.
  public var workloads: [Workload] { [parameters.workload] + (baseline.map { [$0] } ?? []) }

  /// What each measurement of `round` (0-based) may take: an even share of the budget, the
  /// first rounds taking one request more when it does not divide.
  func budget(round: Int) -> (requests: Int?, duration: Double?) {
    let requests = requestLimit.map { $0 / rounds + (round < $0 % rounds ? 1 : 0) }
    return (requests, duration.map { $0 / Double(rounds) })
  }

  /// The members `add` and `mixed` move.
  var memberCount: Int { points > 0 ? points : Self.defaultMembers }

  public func validate() throws(LoadGenError) {
    guard clients >= 1 else { throw .invalidArgument("--clients must be at least 1") }
    guard pipeline >= 1 else { throw .invalidArgument("--pipeline must be at least 1") }
    if let requests, requests < 1 { throw .invalidArgument("--requests must be at least 1") }
    if let duration, !(duration > 0 && duration.isFinite) {
      throw .invalidArgument("--duration must be a positive number of seconds")
    }
    guard points >= 0 else { throw .invalidArgument("--points must be 0 or more") }
    guard loadBatch >= 1 else { throw .invalidArgument("the load batch must be at least 1") }
    guard stallTimeout > 0 else { throw .invalidArgument("--timeout must be > 0") }
    if let threads, threads < 1 { throw .invalidArgument("--threads must be at least 1") }
    guard rounds >= 1 else { throw .invalidArgument("--rounds must be at least 1") }
    if let limit = requestLimit, limit < rounds {
      throw .invalidArgument("--requests must be at least --rounds (one request per round)")
    }
    if baseline == parameters.workload {
      throw .invalidArgument("--baseline must differ from --workload")
    }
    if let records = workloads.first(where: \.makesRecords) {
      guard points > 0 else {
        throw .invalidArgument("the \(records.rawValue) workload needs --points")
      }
      guard workloads.count { $0.makesRecords } == 1 else {
        throw .invalidArgument("cards and pins cannot run in the same run")
      }
      guard cardsPerAccount >= 1 else {
        throw .invalidArgument("--cards-per-account must be at least 1")
      }
    }
    if workloads.contains(.checkin) {
      guard venues >= 1 else { throw .invalidArgument("--venues must be at least 1") }
      // Each server's codes differ: one pool of requests cannot serve two.
      guard compare == nil else {
        throw .invalidArgument("the checkin workload runs on one server (no --compare)")
      }
    }
    guard poolSize >= 1 else { throw .invalidArgument("the request pool must not be empty") }
    try parameters.validate()
  }
}
