import Accounts
import ArgumentParser
import Assets
import CardAtlasApp
import Cards
import Dispatch
import Foundation
import IdentityTokens
import Logging
import Pins
import PostgresStore
import RESP
import Server
import Store
import Venues
import WebPages

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the CardAtlas server (RESP on TCP, Redis GEO compatible).",
    discussion: """
      Serves Redis's protocol (RESP2, RESP3 after HELLO 3, inline commands) on every core. Data \
      lives in memory and in a SQLite/SpatiaLite store under --data; a write is acknowledged \
      only once it is durable. SIGTERM or SIGINT shuts down gracefully.
      """)

  @Option(help: "Address to bind: loopback unless told otherwise.") var host = "127.0.0.1"
  @Option(help: "TCP port.") var port = 7878
  @Option(
    help:
      "Also serve the card pages, vCards, the JSON API, the map, /healthz and /readyz over HTTP on this port (default: off); with --store, /healthz and /readyz only."
  )
  var httpPort: Int?
  @Option(
    help:
      "Close an HTTP connection whose request head is not whole this many seconds after it opened or the request began (0: never)."
  )
  var httpHeaderTimeout = 10
  @Option(
    help: "Close an HTTP connection with no request in progress for this many seconds (0: never).")
  var httpIdleTimeout = 60
  @Option(help: "Most HTTP connections at once; past it a new one is answered 503.")
  var httpMaxConnections = 1024
  @Option(help: "Most HTTP connections at once from one IP address; past it, 503.")
  var httpMaxConnectionsPerAddress = 64
  @Option(
    help:
      "File descriptors HTTP leaves to RESP and the store: past the rest, new HTTP connections are closed at once."
  )
  var httpReservedDescriptors = 128
  @Option(
    help: """
      The map page's tile URL template (https://{s}.tile.example/{z}/{x}/{y}.png); without it \
      the map draws the bundled country outlines, offline.
      """)
  var mapTiles: String?
  @Option(help: "The attribution the map page shows for --map-tiles.") var mapTilesAttribution = ""
  @Option(help: "Directory of the store.") var data = "./var"
  @Option(
    help: """
      A PostgreSQL + PostGIS database that many nodes share, \
      postgresql://user[:password]@host[:port][,host2[:port]]/db[?sslmode=disable|prefer|require], \
      in place of the embedded store under --data: every record is there, and every node \
      serves every command and page; mail the accounts cannot send goes to --data's outbox.
      """)
  var store: String?
  @Option(
    help: """
      With --store: a node silent this many seconds no longer holds the change feed's rows \
      back; if it comes back to find rows it had not applied gone, it exits (status 75) to be \
      started afresh.
      """)
  var nodeTimeout = 300
  @Option(
    help:
      "With --store: GET /readyz answers 503 once the node has not read to the change feed's end for this many seconds."
  )
  var readyLag: Double = 5
  @Option(help: "With --store: the change feed keeps every row at least this many seconds.")
  var feedMinimumAge = 600
  @Option(
    help: """
      The admin's password (AUTH <password>). With it, a client must sign in, as the admin or \
      as an account, for anything but PING, ECHO, HELLO, AUTH and the sign-up and sign-in \
      commands; without it, every client is the admin.
      """)
  var requirepass: String?
  @Option(
    help:
      "always: fsync every group commit; batch: survive a crash of the process, not of the machine."
  )
  var fsync: String = "always"
  @Flag(help: "Webhooks may use http and private addresses (a test deployment's receiver).")
  var hooksAllowInsecure = false
  @Flag(help: "Load the demo dataset (world cities as the GEO key 'cities') into an empty store.")
  var demo = false
  @Option(help: "Longest inline command line and *, $ header, in bytes.")
  var maxInlineLength = 64 * 1024
  @Option(help: "Largest bulk string, in bytes.") var maxBulkLength = 512 * 1024 * 1024
  @Option(help: "Most arguments in one command.") var maxArrayLength = 1024 * 1024
  @Option(help: "Most connections at once.") var maxClients = 10_000
  @Option(help: "Close a connection silent for this many seconds (0: never).")
  var timeout = 600
  @Option(
    help: """
      Close a connection whose replies not yet taken reach <hard> bytes, or stay at <soft> or \
      more for over <soft-seconds>: Redis's '<class> <hard> <soft> <soft-seconds>' for the \
      classes normal and pubsub (connections with subscriptions), sizes such as 64mb or 1gb, \
      0 for no limit.
      """)
  var clientOutputBufferLimit = "normal 256mb 64mb 60 pubsub 32mb 8mb 60"
  @Option(help: "Close a connection whose unparsed input exceeds this (e.g. 1gb; at least 1mb).")
  var clientQueryBufferLimit = "1gb"
  @Option(
    help:
      "Total for all connections' buffers: past it, the connection using the most is closed first (0: none)."
  )
  var maxmemoryClients = "1gb"
  @Option(help: "Event-loop threads (0: one per core).") var threads = 0
  @Option(help: "The base of cards' share URLs.") var publicUrl = "http://127.0.0.1:8080"
  @Option(help: "Cards a free account may have.") var freeCardLimit = 1
  @Option(help: "Cards a Pro account may have (benchmarks raise it to load many cards).")
  var proCardLimit = 10
  @Option(help: "CHECKIN with a position farther than this from the venue is refused, in metres.")
  var checkinDistance = 200.0
  @Option(help: "The largest photo PIN.PHOTO accepts, in bytes.") var maxPhotoBytes =
    10 * 1024 * 1024
  @Option(help: "The fastest a PIN.OPEN's opener may travel from their last one, in km/h.")
  var pinOpenSpeed = 300.0
  @Option(help: "PIN.OPENs one account may make in an hour (0: no limit).")
  var pinOpensPerHour = 120
  @Option(help: "Pins one account may add in an hour (0: no limit).")
  var pinsPerHour = 100
  @Option(help: "Venues one account may create in an hour (0: no limit).")
  var venuesPerHour = 30
  @Option(help: "The largest upload ASSET.PUT and PUT /v1/assets accept, in bytes.")
  var maxUploadBytes = 5 * 1024 * 1024
  @Option(help: "The bytes one account's uploads (ASSET.PUT) may take in all.")
  var uploadQuota = 50 * 1024 * 1024
  @Option(help: "Uploads one account may make in an hour (0: no limit).")
  var uploadsPerHour = 30
  @Option(help: "Accounts one address may sign up in an hour (0: no limit; a load test's).")
  var signupsPerAddress = 20
  @Option(
    help: "Cards one account may look up by share code or share URL in an hour (0: no limit).")
  var codeReadsPerAccount = 300
  @Option(
    help:
      "Look-ups by share code or share URL (pages included) from one address in an hour (0: no limit)."
  )
  var codeReadsPerAddress = 1_000
  @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
  var logLevel = "info"
  @Option(
    help:
      "A Google OAuth client id whose ID tokens sign in (SESSION.OPEN IDTOKEN google); repeatable."
  )
  var googleClientId: [String] = []
  @Option(help: "An Apple app or service id whose ID tokens sign in; repeatable.")
  var appleClientId: [String] = []
  @Option(help: "Google's keys (JWKS): a URL or a file. Default: Google's published keys.")
  var googleJwks: String?
  @Option(help: "Apple's keys (JWKS): a URL or a file. Default: Apple's published keys.")
  var appleJwks: String?
  @Option(
    help:
      "SMTP server (host:port) for password-reset mail; a send that fails goes to the outbox.")
  var smtp: String?
  @Option(help: "SMTP user (AUTH PLAIN or LOGIN).") var smtpUser: String?
  @Option(help: "SMTP password.") var smtpPassword: String?
  @Option(help: "From: of the mail sent.") var smtpFrom = "CardAtlas <noreply@localhost>"
  @Option(help: "GEOCODE's geocoder: offline, nominatim, photon or pelias (default: offline).")
  var geocoder: String?
  @Option(help: "The geocoder service's base URL (answers cached in the store).")
  var geocoderUrl: String?
  @Option(
    help: """
      Requests per second to the geocoder service (default: 1, the public services' policy; \
      50 for a service on this machine's loopback address).
      """)
  var geocoderRate: String?
  @Option(help: "Nominatim's email parameter.") var geocoderEmail: String?

  func run() async throws {
    try checkHourlyLimits()
    guard let policy = FsyncPolicy(rawValue: fsync) else {
      throw ValidationError("--fsync must be 'always' or 'batch'")
    }
    guard let level = Logger.Level(rawValue: logLevel) else {
      throw ValidationError(
        "--log-level must be one of trace, debug, info, notice, warning, error, critical")
    }
    guard case .success(let outputLimits) = OutputBufferLimit.parse(clientOutputBufferLimit)
    else {
      throw ValidationError(
        "--client-output-buffer-limit must be '<class> <hard> <soft> <soft-seconds>' for normal or pubsub, e.g. 'normal 256mb 64mb 60 pubsub 32mb 8mb 60'"
      )
    }
    guard let queryLimit = MemorySize.parse(clientQueryBufferLimit), queryLimit >= 1024 * 1024
    else { throw ValidationError("--client-query-buffer-limit must be a size of at least 1mb") }
    guard let clientsLimit = MemorySize.parse(maxmemoryClients) else {
      throw ValidationError("--maxmemory-clients must be a size in bytes, e.g. 1gb, or 0")
    }
    var config = ServerConfiguration()
    config.host = host
    config.port = port
    config.dataDirectory = data
    config.requirePassword = requirepass
    config.fsync = policy
    config.demo = demo
    config.limits = RESPLimits(
      maxInlineLength: maxInlineLength, maxBulkLength: maxBulkLength, maxArrayLength: maxArrayLength
    )
    config.maxClients = maxClients
    config.idleTimeout = timeout
    config.threads = threads
    if let limit = outputLimits.normal { config.outputBufferLimit = limit }
    if let limit = outputLimits.pubsub { config.pubsubOutputBufferLimit = limit }
    config.queryBufferLimit = queryLimit
    config.maxMemoryClients = clientsLimit
    config.hooksAllowInsecure = hooksAllowInsecure
    var logger = Logger(label: "cardatlas")
    logger.logLevel = level
    guard freeCardLimit >= 1, proCardLimit >= freeCardLimit else {
      throw ValidationError("card limits: --free-card-limit ≥ 1 and --pro-card-limit ≥ it")
    }
    var cards = Cards.Configuration()
    cards.publicURL = publicUrl
    cards.freeCardLimit = freeCardLimit
    cards.proCardLimit = proCardLimit
    cards.codeReadsPerAccount = codeReadsPerAccount
    cards.codeReadsPerAddress = codeReadsPerAddress
    guard maxPhotoBytes >= 1 else { throw ValidationError("--max-photo-bytes must be at least 1") }
    guard pinOpenSpeed > 0 else { throw ValidationError("--pin-open-speed must be > 0") }
    guard maxUploadBytes >= 1 else {
      throw ValidationError("--max-upload-bytes must be at least 1")
    }
    guard uploadQuota >= 1 else { throw ValidationError("--upload-quota must be at least 1") }
    var assets = Assets.Configuration()
    assets.maxBytes = maxUploadBytes
    assets.quotaBytes = uploadQuota
    assets.uploadsPerHour = uploadsPerHour
    guard checkinDistance > 0, checkinDistance.isFinite else {
      throw ValidationError("--checkin-distance must be a positive number of metres")
    }
    var venues = Venues.Configuration()
    venues.checkInDistance = checkinDistance
    venues.createsPerHour = venuesPerHour
    var pins = Pins.Configuration()
    pins.maxPhotoBytes = maxPhotoBytes
    pins.maximumOpenerSpeed = pinOpenSpeed
    pins.opensPerHour = pinOpensPerHour
    pins.addsPerHour = pinsPerHour
    var domain = Domain.Configuration()
    domain.accounts = try accountsConfiguration(logger)
    domain.cards = cards
    domain.geocoder = try geocoding()
    domain.venues = venues
    domain.assets = assets
    domain.pins = pins
    if let store {
      guard nodeTimeout >= 1, feedMinimumAge >= 0, readyLag > 0 else {
        throw ValidationError(
          "--node-timeout must be at least 1, --feed-minimum-age 0 or more, --ready-lag above 0")
      }
      var retention = FeedRetention()
      retention.nodeTimeout = .seconds(nodeTimeout)
      retention.minimumAge = .seconds(feedMinimumAge)
      let readiness = NodeReadiness(maximumLag: .seconds(readyLag))
      // Bound first: a probe sees the node loading.
      let health = try httpPort.map { port in
        HealthServer(
          host: host, port: port, logger: logger, limits: try httpLimits(),
          readiness: readiness.current)
      }
      try await health?.start()
      // Meanwhile RESP clients are told LOADING, as Redis tells them, rather than refused.
      let loading = try await LoadingListener.bind(host: host, port: port, maxClients: maxClients)
      let node: (server: CardAtlasServer, domain: Domain)
      do {
        node = try await PostgresNode.open(
          server: config, url: store, retention: retention, domain: domain,
          outbox: data + "/outbox", readiness: readiness, logger: logger)
      } catch {
        await loading.close()
        throw error
      }
      await loading.close()
      try await node.server.start()
      // Loaded: the pages and the API take the HTTP port over from the probes alone.
      let web = try http().map {
        try Daemon.webServer(node.domain, $0, logger: logger, readiness: readiness.current)
      }
      if let web {
        await health?.stop()
        try await web.start()
      }
      readiness.serve()
      await Self.waitForSignal()
      await web?.stop()
      await node.server.stop()
      await health?.stop()
      return
    }
    let daemon = try Daemon(
      server: config, domain: domain, http: try http(), logger: logger)
    try await daemon.start()
    await Self.waitForSignal()
    await daemon.stop()
  }

  /// The HTTP door the options set; nil without --http-port.
  func http() throws -> Daemon.HTTP? {
    guard let httpPort else { return nil }
    var http = Daemon.HTTP()
    http.host = host
    http.port = httpPort
    if let mapTiles {
      guard WebMap.Options.isValidTileURL(mapTiles) else {
        throw ValidationError(
          "--map-tiles must be an http(s) URL template without quotes or spaces")
      }
      http.map.tileURL = mapTiles
      http.map.tileAttribution = mapTilesAttribution
    }
    http.limits = try httpLimits()
    return http
  }

  /// The HTTP side's connection limits the options set.
  func httpLimits() throws -> HTTPLimits {
    guard httpHeaderTimeout >= 0, httpIdleTimeout >= 0 else {
      throw ValidationError(
        "--http-header-timeout and --http-idle-timeout must be 0 or more seconds")
    }
    guard httpMaxConnections >= 1, httpMaxConnectionsPerAddress >= 1 else {
      throw ValidationError(
        "--http-max-connections and --http-max-connections-per-address must be at least 1")
    }
    guard httpReservedDescriptors >= 0 else {
      throw ValidationError("--http-reserved-descriptors must be 0 or more")
    }
    var limits = HTTPLimits()
    limits.headerTimeout = httpHeaderTimeout > 0 ? .seconds(httpHeaderTimeout) : nil
    limits.idleTimeout = httpIdleTimeout > 0 ? .seconds(httpIdleTimeout) : nil
    limits.maxConnections = httpMaxConnections
    limits.maxConnectionsPerAddress = httpMaxConnectionsPerAddress
    limits.reservedDescriptors = httpReservedDescriptors
    return limits
  }

  /// The limits an account or an address meets in an hour: 0 is none, below it is refused.
  func checkHourlyLimits() throws {
    let limits = [
      ("--signups-per-address", signupsPerAddress),
      ("--code-reads-per-account", codeReadsPerAccount),
      ("--code-reads-per-address", codeReadsPerAddress), ("--uploads-per-hour", uploadsPerHour),
      ("--pin-opens-per-hour", pinOpensPerHour), ("--pins-per-hour", pinsPerHour),
      ("--venues-per-hour", venuesPerHour),
    ]
    if let (flag, _) = limits.first(where: { $0.1 < 0 }) {
      throw ValidationError("\(flag) must be >= 0 (0: no limit)")
    }
  }

  /// The ID-token providers and the mailer the options set.
  func accountsConfiguration(_ logger: Logger) throws -> Accounts.Configuration {
    var configuration = Accounts.Configuration()
    configuration.logger = logger
    configuration.signUpsPerAddress = signupsPerAddress
    var providers: [IdentityProvider] = []
    if !googleClientId.isEmpty {
      providers.append(
        .google(
          clientIDs: Set(googleClientId),
          keys: googleJwks.map(IdentityProvider.KeySource.init) ?? IdentityProvider.googleKeys))
    }
    if !appleClientId.isEmpty {
      providers.append(
        .apple(
          clientIDs: Set(appleClientId),
          keys: appleJwks.map(IdentityProvider.KeySource.init) ?? IdentityProvider.appleKeys))
    }
    if !providers.isEmpty {
      configuration.identityTokens = IdentityTokenVerifier(
        .init(providers: providers), logger: logger)
    }
    if let smtp {
      guard var mailer = SMTPMailer(address: smtp) else {
        throw ValidationError("--smtp must be host:port, e.g. mail.example.org:25")
      }
      guard (smtpUser == nil) == (smtpPassword == nil) else {
        throw ValidationError("--smtp-user and --smtp-password go together")
      }
      mailer.username = smtpUser
      mailer.password = smtpPassword
      mailer.from = smtpFrom
      configuration.mailer = mailer
    }
    return configuration
  }

  /// Returns on the first SIGTERM or SIGINT.
  static func waitForSignal() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let once = SignalOnce(continuation)
      for signalNumber in [SIGTERM, SIGINT] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { once.fire() }
        source.resume()
        once.keep(source)
      }
    }
  }
}

/// Resumes the continuation once, whichever signal comes first, and keeps the sources alive.
private final class SignalOnce: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Void, Never>?
  private var sources: [DispatchSourceSignal] = []

  init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

  func keep(_ source: DispatchSourceSignal) {
    lock.withLock { sources.append(source) }
  }

  func fire() {
    let c = lock.withLock { () -> CheckedContinuation<Void, Never>? in
      defer { continuation = nil }
      return continuation
    }
    c?.resume()
  }
}
