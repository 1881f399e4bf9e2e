// swift-tools-version: 6.1
import PackageDescription

// The executable's allocator: jemalloc (Debian's libjemalloc), as Redis links it. glibc's malloc
// made threads wait on each other's arena locks (the store's writer freeing what an event loop
// allocated) and was 10 to 20% slower over the wire (docs/BENCHMARKS.md, "jemalloc"). The
// sanitizer builds keep the system's, since they replace malloc themselves; so does macOS.
let allocator: [LinkerSetting] =
  Context.environment["CARDATLAS_SYSTEM_MALLOC"] == nil
  ? [.linkedLibrary("jemalloc", .when(platforms: [.linux]))] : []

let package = Package(
  name: "CardAtlas",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "cardatlas", targets: ["CardAtlasCLI"]),
    .executable(name: "cardatlas-bench", targets: ["CardAtlasBench"]),
    .library(name: "Geodesy", targets: ["Geodesy"]),
    .library(name: "SpatialIndex", targets: ["SpatialIndex"]),
    .library(name: "Datasets", targets: ["Datasets"]),
    .library(name: "IndexBaselines", targets: ["IndexBaselines"]),
    // For the command benchmarks in Benchmarks/.
    .library(name: "RESP", targets: ["RESP"]),
    .library(name: "Keyspace", targets: ["Keyspace"]),
    .library(name: "Commands", targets: ["Commands"]),
    .library(name: "LoadGen", targets: ["LoadGen"]),
    .library(name: "RESPClient", targets: ["RESPClient"]),
    .library(name: "Geocoding", targets: ["Geocoding"]),
    .library(name: "Gazetteer", targets: ["Gazetteer"]),
    .library(name: "GeocoderClients", targets: ["GeocoderClients"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
    // The HTTP side (card pages, vCards); its default traits (swift-configuration, full
    // Foundation) are not needed.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    // The shared store of many nodes: PostgreSQL + PostGIS (docs/STORE.md, "Many nodes").
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    // The fences' expiries, soonest first.
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    // Webhooks' deliveries: pooled keep-alive connections, TLS, deadlines.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
  ],
  targets: [
    // Sphere maths: coordinates, distances, geohash, Web Mercator. No dependencies.
    .target(name: "Geodesy", path: "Sources/GeoCore/Geodesy"),
    // What the index needs from C: prefetch and spin-wait hints (Swift has no intrinsics for
    // them) and a vector test of 16 boxes (Swift's SIMD comparisons compile to lane loops).
    .target(name: "IndexIntrinsics", path: "Sources/CShims/IndexIntrinsics"),
    // jemalloc's options for the executable (see `allocator` above).
    .target(name: "AllocatorOptions", path: "Sources/CShims/AllocatorOptions"),
    // The in-memory dynamic index: radius, kNN, box, circles, clusters.
    // Its hot loops work on raw buffers owned by final classes; the runtime exclusivity checks on
    // those classes' properties cost more than the queries themselves.
    .target(
      name: "SpatialIndex", dependencies: ["Geodesy", "IndexIntrinsics"],
      path: "Sources/GeoCore/SpatialIndex",
      swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    // Seeded realistic datasets: points clustered around real cities, and a uniform control.
    .target(name: "Datasets", dependencies: ["Geodesy"], path: "Sources/GeoCore/Datasets"),
    // Geofences: standing queries over moving objects (circles and GeoJSON polygons, indexed by
    // the circles that hold them), and the events a move makes.
    .target(
      name: "Fences", dependencies: ["Geodesy", "SpatialIndex"], path: "Sources/GeoCore/Fences"),
    // What users would pick instead of our index, for benchmarks: SQLite's R*Tree.
    .target(
      name: "IndexBaselines",
      dependencies: ["Geodesy", "SpatialIndex", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Sources/Tools/IndexBaselines"),
    // `cardatlas-bench index`: runs the index workloads and baselines, prints a table or JSON.
    .target(
      name: "IndexBench", dependencies: ["SpatialIndex", "Datasets", "IndexBaselines"],
      path: "Sources/Tools/IndexBench"),
    // `cardatlas-bench cards`, `bench pins` and `bench people`: the card domain's, the pins' and
    // the people's goals in process (map search and PIN.AT against GEOSEARCH on the same points,
    // clusters, wallet search, memory; PEOPLE.NEARBY over moving presences).
    .target(
      name: "CardBench",
      dependencies: [
        "SQLiteDomainStorage",
        "Accounts", "Cards", "Datasets", "Geodesy", "Keyspace", "SpatialIndex", "Store",
        "DomainSupport", "Pins", "MediaFiles", "People", "QRCodes",
      ], path: "Sources/Tools/CardBench"
    ),
    // Redis RESP framing: incremental request parsing and RESP2/RESP3 reply encoding.
    .target(
      name: "RESP", dependencies: [.product(name: "NIOCore", package: "swift-nio")],
      path: "Sources/Doors/RESP"),
    // Redis-style databases held in memory: strings and GEO sets, with Redis 7.0's GEO search
    // semantics answered by the spatial index, and the changes a write makes, for the store.
    // Like SpatialIndex, its per-query paths run on final classes' properties, where runtime
    // exclusivity checks measured about 5% of a GEOSEARCH.
    .target(
      name: "Keyspace", dependencies: ["Geodesy", "SpatialIndex"], path: "Sources/GeoCore/Keyspace",
      swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    // The durable store: SQLite (WAL) through GRDB, points as SpatiaLite geometries, group commit.
    // What any store's writes are, and where the domain hands them (`WriteCommitter`): the seam
    // between the domain and the store that takes its writes.
    .target(name: "Durability", path: "Sources/Storage/Durability"),
    .target(
      name: "Store",
      dependencies: [
        "Durability",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Storage/Store"),
    // The keyspace's writer and loader above the store: a command's `Change`s as one durable
    // write, and the stored keys streamed back as changes at start.
    .target(
      name: "KeyspaceStore",
      dependencies: [
        "Store", "Keyspace", "CZlib", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Storage/KeyspaceStore"),
    // The store many nodes share: PostgreSQL through postgres-nio. Connections to the primary
    // of a multi-host URL, frozen migrations, the group commit, and the change feed every node
    // follows (docs/STORE.md, "Many nodes").
    .target(
      name: "PostgresStore",
      dependencies: [
        "Durability", .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Storage/PostgresStore"),
    // The keyspace over PostgreSQL: GEO members as PostGIS points, and what other nodes write
    // applied to this node's keyspace as the change feed brings it.
    .target(
      name: "PostgresKeyspaceStore",
      dependencies: [
        "PostgresStore", "Durability", "Keyspace",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Storage/PostgresKeyspaceStore"),
    // The domain's storage protocols implemented on PostgreSQL, for nodes that share one
    // database: the tables, frozen migrations, and each write's change in the feed.
    .target(
      name: "PostgresDomainStorage",
      dependencies: [
        "PostgresStore", "Durability", "Accounts", "Cards", "People", "Pins", "MediaFiles",
        "Documents", "Assets", "Venues", "GeocoderClients",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
      ], path: "Sources/DomainStorage/PostgresDomainStorage"),
    // Limits per account and per address (sliding windows), and the address key they count on.
    .target(name: "RateLimits", path: "Sources/Domain/RateLimits"),
    // What the domain modules share that is too small for a module of its own: the `Notifier`
    // they publish through (the server delivers it as Redis pub/sub), and a task executor on
    // Dispatch's threads for work that must not wait behind code blocking Swift's pool.
    .target(
      name: "DomainSupport", dependencies: ["IndexIntrinsics"], path: "Sources/Domain/DomainSupport"),
    // The command layer: Redis commands parsed, checked and run on the keyspace, as RESP replies.
    .target(
      name: "Commands",
      dependencies: [
        "Keyspace", "SpatialIndex", "RESP", "RateLimits",
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ], path: "Sources/Doors/Commands"),
    // What the RESP and HTTP listeners need beyond NIO's defaults (a pause at EMFILE).
    .target(
      name: "Listeners", dependencies: [.product(name: "NIOCore", package: "swift-nio")],
      path: "Sources/Doors/Listeners"),
    // The TCP server: SwiftNIO channels, limits, auth, group-committed writes, statistics.
    // Exclusivity checks are off for the same measured reason as Keyspace's.
    .target(
      name: "Server",
      dependencies: [
        "Commands", "Store", "KeyspaceStore", "Durability", "RESP", "Datasets", "DomainSupport",
        "RateLimits", "Listeners", "FenceCommands", "Webhooks", "SQLiteHookOutbox",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ], path: "Sources/Doors/Server",
      swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    // Google's and Apple's ID tokens checked against their published keys (JWKS); no RESP.
    .target(
      name: "IdentityTokens",
      dependencies: [
        "DomainSupport",
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Domain/IdentityTokens"),
    // Accounts: sign-up, sign-in (scrypt, ID tokens), sessions, resets and their mail,
    // deletion, Pro; no RESP, no HTTP.
    .target(
      name: "Accounts",
      dependencies: [
        "Durability", "IdentityTokens", "RateLimits", "DomainSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CryptoExtras", package: "swift-crypto"),
      ], path: "Sources/Domain/Accounts"),
    // Cards: the card model and its rules (plans, share URLs, who may change what), the card
    // map index; no RESP, no HTTP.
    .target(
      name: "Cards",
      dependencies: [
        "Accounts", "Durability", "SpatialIndex", "IndexIntrinsics", "Geodesy", "DomainSupport",
        "Geocoding", "RateLimits",
        .product(name: "Crypto", package: "swift-crypto"),
      ], path: "Sources/Domain/Cards"),
    // The accounts' commands (ACCOUNT.*, SESSION.*, WHOAMI): arguments in, JSON replies out.
    .target(
      name: "AccountCommands",
      dependencies: ["ErrorLines", "Accounts", "Commands", "Server", "RESP"],
      path: "Sources/Doors/AccountCommands"),
    // The error lines both doors answer for the domain's errors (RESP's error replies, the
    // HTTP API's `error`): the domain's errors are data, their words on the wire are here.
    .target(
      name: "ErrorLines",
      dependencies: [
        "Accounts", "Cards", "Pins", "People", "Documents", "Venues", "Assets", "QRCodes",
        "RateLimits",
      ], path: "Sources/Doors/ErrorLines"),
    // The cards' commands (CARD.*): arguments in, JSON replies out.
    .target(
      name: "CardCommands",
      dependencies: [
        "ErrorLines", "Cards", "Accounts", "Commands", "RESP", "SpatialIndex", "QRCodes",
      ], path: "Sources/Doors/CardCommands"),
    // Photo pins (GeoPic): pins with a viewing circle in an index of their own, photos as
    // files, votes; no RESP.
    .target(
      name: "Pins",
      dependencies: [
        "Accounts", "Cards", "Durability", "SpatialIndex", "Geodesy", "MediaFiles", "RateLimits",
        "DomainSupport",
      ], path: "Sources/Domain/Pins"),
    // The pins' commands (PIN.*): arguments in, JSON replies out.
    // FENCE.*: geofences over the GEO keys, evaluated as the keyspace's writes are logged.
    // Webhooks: hooks, signed POSTs with retries and dead letters from a durable outbox
    // (`HookOutbox`), the URL rules; what feeds a hook is its caller's.
    .target(
      name: "Webhooks",
      dependencies: [
        "DomainSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ], path: "Sources/Domain/Webhooks"),
    // The webhooks' outbox in SQLite (`hooks.sqlite` beside the store).
    .target(
      name: "SQLiteHookOutbox",
      dependencies: [
        "Webhooks", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ], path: "Sources/DomainStorage/SQLiteHookOutbox"),
    // A webhook receiver checking signatures and answering as told: the tests' and benchmarks'.
    .target(
      name: "HookReceiver",
      dependencies: [
        "Webhooks", "DomainSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Tools/HookReceiver"),
    .target(
      name: "FenceCommands",
      dependencies: [
        "Commands", "Fences", "Keyspace", "Geodesy", "RESP", "DomainSupport", "Webhooks",
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ], path: "Sources/Doors/FenceCommands"),
    .target(
      name: "PinCommands",
      dependencies: [
        "ErrorLines",
        "Pins", "CardCommands", "Commands", "RESP",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/PinCommands"),
    // Venues and check-ins (CovidPass): venues, rotating codes, visits, dependants, favorites,
    // exposure; no RESP.
    .target(
      name: "Venues",
      dependencies: [
        "Accounts", "Durability", "DomainSupport", "Geocoding", "Geodesy", "RateLimits",
      ], path: "Sources/Domain/Venues"),
    // The venues' commands (VENUE.*, CHECKIN*, EXPOSURE*...): arguments in, JSON replies out.
    .target(
      name: "VenueCommands",
      dependencies: [
        "ErrorLines",
        "Venues", "CardCommands", "Accounts", "Commands", "RESP", "QRCodes",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/VenueCommands"),
    // `cardatlas-bench venues`: EXPOSURE and CHECKIN in process.
    .target(
      name: "VenueBench",
      dependencies: [
        "Venues", "SQLiteDomainStorage", "Accounts", "Store", "DomainSupport", "Datasets",
        "Geodesy",
      ],
      path: "Sources/Tools/VenueBench"),
    // numo's people nearby (live presences in memory only) and exchanges of cards; no RESP.
    .target(
      name: "People",
      dependencies: [
        "Accounts", "Cards", "Durability", "SpatialIndex", "Geodesy", "Geocoding",
        "DomainSupport", "RateLimits", .product(name: "Crypto", package: "swift-crypto"),
      ], path: "Sources/Domain/People"),
    // PRESENCE.*, PEOPLE.NEARBY, EXCHANGE.*: arguments in, JSON replies out.
    .target(
      name: "PeopleCommands",
      dependencies: [
        "ErrorLines",
        "People", "Cards", "Commands", "RESP",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/PeopleCommands"),
    // Private documents (vaccination records, test results): rows in the store, files in the
    // data directory through MediaFiles; no RESP.
    .target(
      name: "Documents", dependencies: ["Accounts", "Durability", "MediaFiles"],
      path: "Sources/Domain/Documents"),
    // The domain's storage protocols implemented on the embedded store: every domain's SQL and
    // its frozen migrations.
    .target(
      name: "SQLiteDomainStorage",
      dependencies: [
        "Store", "Accounts", "Cards", "Documents", "Pins", "Assets", "People", "Venues",
        "GeocoderClients", "MediaFiles", "DomainSupport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ], path: "Sources/DomainStorage/SQLiteDomainStorage"),
    // DOC.*: arguments in, JSON replies and file bytes out.
    .target(
      name: "DocumentCommands",
      dependencies: [
        "ErrorLines",
        "Documents", "Commands", "RESP",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/DocumentCommands"),
    // Uploaded profile images, logos and CVs: rows in the store, files through MediaFiles,
    // named by their owner's cards; no RESP.
    .target(
      name: "Assets",
      dependencies: ["Accounts", "Cards", "Durability", "MediaFiles", "CZlib", "RateLimits"],
      path: "Sources/Domain/Assets"),
    // ASSET.PUT: arguments in, JSON replies out.
    .target(
      name: "AssetCommands",
      dependencies: [
        "ErrorLines",
        "Assets", "Commands", "RESP",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/AssetCommands"),
    // RESP clients: a blocking connection (the importer's, the tests') and a pipelined one on
    // SwiftNIO (the load generator's), framing requests and reading replies with RESP's parser.
    .target(
      name: "RESPClient",
      dependencies: [
        "RESP", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ], path: "Sources/Tools/RESPClient"),
    // `cardatlas-bench load`: a pipelined RESP load generator with latency histograms.
    .target(
      name: "LoadGen",
      dependencies: [
        "Datasets", "RESP", "RESPClient",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ], path: "Sources/Tools/LoadGen"),
    // Geocoding's shared types: the `Geocoder` protocol, queries and normalized places; no HTTP.
    .target(name: "Geocoding", path: "Sources/GeoCore/Geocoding"),
    // zlib, to inflate the gazetteer's gzip'd data (Foundation has no inflate on Linux).
    .systemLibrary(name: "CZlib", path: "Sources/CShims/CZlib", providers: [.apt(["zlib1g-dev"])]),
    // libqrencode, libpng and libjpeg-turbo, for QR codes.
    .systemLibrary(
      name: "CQRencode", path: "Sources/CShims/CQRencode", providers: [.apt(["libqrencode-dev"])]),
    .systemLibrary(name: "CPNG", path: "Sources/CShims/CPNG", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CJPEG", path: "Sources/CShims/CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
    // QR codes of share URLs and check-in codes as PNG, JPEG or SVG bytes; no RESP, no HTTP.
    .target(
      name: "QRCodes", dependencies: ["CQRencode", "CPNG", "CJPEG"], path: "Sources/Domain/QRCodes"),
    // What a shared link shows: a card's 1200×630 preview image and the site's icon, drawn as
    // PNG (libpng) with a bitmap font of its own; no RESP, no HTTP.
    .target(name: "PreviewImages", dependencies: ["CPNG"], path: "Sources/Domain/PreviewImages"),
    // The offline geocoder over GeoNames places in data/gazetteer.tsv.gz.
    .target(
      name: "Gazetteer", dependencies: ["Geocoding", "Geodesy", "CZlib"],
      path: "Sources/GeoCore/Gazetteer"),
    // Uploaded files (photos, documents) beside the store, and what they are by their bytes.
    .target(
      name: "MediaFiles", dependencies: ["CZlib", "DomainSupport"], path: "Sources/Domain/MediaFiles"),
    // Clients of Nominatim, Photon and Pelias over URLSession (libcurl), with rate limits,
    // retries, a circuit breaker and a SQLite cache; no RESP.
    .target(
      name: "GeocoderClients",
      dependencies: [
        "Geocoding", "Geodesy", "DomainSupport",
      ], path: "Sources/Domain/GeocoderClients"),
    // GEOCODE and GEOCODE.REVERSE: arguments in, JSON places out.
    .target(
      name: "GeocodeCommands",
      dependencies: [
        "GeocoderClients", "Geocoding", "Commands", "RESP", "DomainSupport",
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/GeocodeCommands"),
    // `cardatlas import`: CSV (streamed by CSV.swift) or JSON Lines rows geocoded and written as
    // cards, to a running daemon over RESP or into a data directory; resumable, reported.
    .target(
      name: "Importer",
      dependencies: [
        "ErrorLines",
        "Cards", "Accounts", "SQLiteDomainStorage", "Store", "Geocoding", "Gazetteer",
        "DomainSupport", "RESPClient",
        .product(name: "CSV", package: "CSV.swift"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Tools/Importer"),
    // The HTTP side beside the RESP port: card pages (Mustache templates) and vCards, on the
    // same domain objects as the commands; no RESP.
    .target(
      name: "WebPages",
      dependencies: [
        "ErrorLines",
        "Accounts", "Cards", "Venues", "Assets", "QRCodes", "PreviewImages", "Datasets",
        "RateLimits", "Listeners", "Geocoding",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "Mustache", package: "swift-mustache"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Doors/WebPages"),
    // The composition root: the store, every domain service built once on it, and the RESP
    // and HTTP doors handed the same instances (`Daemon`, which `serve` and the tests run).
    .target(
      name: "CardAtlasApp",
      dependencies: [
        "Server", "Store", "SQLiteDomainStorage", "DomainSupport", "Accounts", "Cards", "Pins",
        "People", "Documents",
        "Venues", "Assets", "MediaFiles", "Geocoding", "GeocoderClients", "Datasets",
        "AccountCommands", "CardCommands", "PinCommands", "PeopleCommands", "DocumentCommands",
        "VenueCommands", "AssetCommands", "GeocodeCommands", "WebPages", "Keyspace",
        "PostgresStore", "PostgresKeyspaceStore", "PostgresDomainStorage", "KeyspaceStore",
        "Commands", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/App/CardAtlasApp"),
    .executableTarget(
      name: "CardAtlasCLI",
      dependencies: [
        "CardAtlasApp", "Server", "Store", "RESP", "Accounts", "Cards", "Pins", "Venues",
        "Assets", "Geocoding", "Gazetteer", "IdentityTokens", "GeocoderClients",
        "SQLiteDomainStorage", "Importer",
        "WebPages", "AllocatorOptions", "PostgresStore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/App/CardAtlasCLI",
      linkerSettings: allocator),
    // `cardatlas-bench`: the index, load, cards, pins, venues, people and QR benchmarks.
    .executableTarget(
      name: "CardAtlasBench",
      dependencies: [
        "IndexBench", "CardBench", "VenueBench", "LoadGen", "AllocatorOptions",
        "PostgresStore", "PostgresKeyspaceStore", "Keyspace", "Geodesy", "Fences", "Datasets",
        "HookReceiver", "RESPClient",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Sources/Tools/CardAtlasBench",
      linkerSettings: allocator),
    // The request parser and the command layer under libFuzzer (`make fuzz`, docs/FUZZING.md);
    // built plainly, it replays saved inputs.
    .executableTarget(
      name: "CommandFuzzer",
      dependencies: [
        "Commands", "Keyspace", "RESP", .product(name: "NIOCore", package: "swift-nio"),
      ], path: "Sources/Tools/CommandFuzzer"),
    // A throwaway real redis-server: the oracle the Redis-compatibility tests compare with.
    // (and ChildProcess, which starts the programs the tests run: Foundation's Process crashes.)
    .target(
      name: "RedisTestSupport",
      dependencies: [
        "RESP", "RESPClient", "CSpawn", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Tests/RedisTestSupport"),
    .systemLibrary(name: "CSpawn", path: "Tests/CSpawn"),
    .testTarget(
      name: "ArchitectureTests",
      dependencies: ["RedisTestSupport", .product(name: "NIOCore", package: "swift-nio")]),
    // Throwaway databases on the test PostgreSQL (`scripts/test-postgres.sh`).
    .target(
      name: "PostgresTestSupport",
      dependencies: [
        "PostgresStore", .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ], path: "Tests/PostgresTestSupport"),
    // The daemon as `serve` composes it, in the test's process: the wire suites' one server,
    // over the embedded store or, when the run asks, a PostgreSQL database of its own.
    .target(
      name: "DaemonTestSupport",
      dependencies: [
        "CardAtlasApp", "Server", "Accounts", "Cards", "RedisTestSupport", "PostgresTestSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ], path: "Tests/DaemonTestSupport"),
    .target(
      name: "DomainTestSupport",
      dependencies: [
        "Store", "Accounts", "SQLiteDomainStorage",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CryptoExtras", package: "swift-crypto"),
      ],
      path: "Tests/DomainTestSupport"),
    .testTarget(
      name: "AccountsTests", dependencies: ["Accounts", "SQLiteDomainStorage", "DomainTestSupport"]),
    .testTarget(
      name: "DocumentsTests",
      dependencies: [
        "Documents", "Accounts", "MediaFiles", "SQLiteDomainStorage", "Durability",
        "DomainTestSupport", "RedisTestSupport",
      ]),
    .testTarget(
      name: "PinsTests",
      dependencies: [
        "SQLiteDomainStorage",
        "Pins", "Accounts", "MediaFiles", "Geodesy", "DomainTestSupport", "RedisTestSupport",
      ]),
    .testTarget(
      name: "VenuesTests",
      dependencies: [
        "Venues", "SQLiteDomainStorage", "Accounts", "DomainSupport", "DomainTestSupport",
      ]),
    .testTarget(
      name: "AssetsTests",
      dependencies: [
        "SQLiteDomainStorage",
        "Assets", "Cards", "Accounts", "MediaFiles", "DomainTestSupport", "RedisTestSupport",
      ]),
    .testTarget(
      name: "PeopleTests",
      dependencies: [
        "SQLiteDomainStorage", "People", "Cards", "Accounts", "DomainSupport", "DomainTestSupport",
      ]),
    .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "RedisTestSupport"]),
    .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "Datasets"]),
    .testTarget(name: "FencesTests", dependencies: ["Fences", "Geodesy", "Datasets"]),
    .testTarget(name: "DatasetsTests", dependencies: ["Datasets"]),
    .testTarget(name: "IndexBaselinesTests", dependencies: ["IndexBaselines", "Datasets"]),
    .testTarget(name: "IndexBenchTests", dependencies: ["IndexBench"]),
    .testTarget(name: "RESPTests", dependencies: ["RESP", "RedisTestSupport"]),
    .testTarget(name: "KeyspaceTests", dependencies: ["Keyspace", "Geodesy", "Datasets"]),
    .testTarget(
      name: "StoreTests",
      dependencies: [
        "Store", "KeyspaceStore", "Keyspace", "Durability",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "PostgresStoreTests",
      dependencies: [
        "PostgresStore", "PostgresKeyspaceStore", "PostgresDomainStorage", "Accounts", "Keyspace",
        "Durability", "Geodesy", "Datasets", "RedisTestSupport", "PostgresTestSupport", "GeocoderClients",
        "Geocoding",
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "CommandsTests", dependencies: ["Commands", "Keyspace", "Datasets"]),
    .testTarget(name: "RateLimitsTests", dependencies: ["RateLimits"]),
    .testTarget(
      name: "IdentityTokensTests",
      dependencies: [
        "IdentityTokens", "DomainTestSupport", .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(name: "DomainSupportTests", dependencies: ["DomainSupport"]),
    .testTarget(
      name: "LoadGenTests",
      dependencies: [
        "LoadGen", "RESPClient", "RedisTestSupport", "DaemonTestSupport", "Cards", "Datasets",
        "Pins", "Venues", "People",
      ]),
    .testTarget(
      name: "CardsTests",
      dependencies: [
        "ErrorLines", "Accounts", "Cards", "Datasets", "DomainSupport", "DomainTestSupport",
        "SQLiteDomainStorage", .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(name: "PreviewImagesTests", dependencies: ["PreviewImages", "CPNG"]),
    .testTarget(name: "QRCodesTests", dependencies: ["ErrorLines", "QRCodes", "RedisTestSupport"]),
    .testTarget(name: "MediaFilesTests", dependencies: ["MediaFiles", "RedisTestSupport"]),
    .testTarget(
      name: "GazetteerTests",
      dependencies: ["Gazetteer", "Geocoding", "Geodesy", "RedisTestSupport"]),
    .testTarget(
      name: "GeocoderClientsTests",
      dependencies: [
        "GeocoderClients", "DomainSupport", "SQLiteDomainStorage", "Geocoding", "Geodesy", "Store",
        "RedisTestSupport", "Datasets", .product(name: "GRDB", package: "GRDB.swift"),
      ],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "DomainTests",
      dependencies: [
        "DaemonTestSupport", "DomainTestSupport", "CardAtlasApp", "Accounts", "Cards", "Server",
        "Store", "RESP", "RedisTestSupport", "Gazetteer", "Geodesy", "IdentityTokens", "GeocoderClients",
        "Geocoding", "Pins", "Venues", "People", "Documents", "MediaFiles", "SQLiteDomainStorage",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "CryptoExtras", package: "swift-crypto"),
      ]),
    // The card pages and vCards over real HTTP and RESP sockets, in one process.
    .testTarget(
      name: "WebTests",
      dependencies: [
        "DaemonTestSupport", "CardAtlasApp", "WebPages", "Accounts", "Cards", "Server", "RESP",
        "RedisTestSupport", "Assets", "Venues", "MediaFiles",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]),
    // `cardatlas import` through the built executable (it must be built: `swift build`).
    .testTarget(
      name: "ImportTests",
      dependencies: [
        "Accounts", "Cards", "SQLiteDomainStorage", "RESP", "RedisTestSupport", "Geodesy",
        "Gazetteer", "Geocoding", .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "WebhooksTests",
      dependencies: [
        "Webhooks", "SQLiteHookOutbox", "HookReceiver", .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "ServerTests",
      dependencies: [
        "Server", "Commands", "Keyspace", "Store", "RESP", "RedisTestSupport", "Fences", "Geodesy",
        "HookReceiver", "Webhooks", "SQLiteHookOutbox", "FenceCommands", "CSpawn",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// The sanitizer builds (`make sanitize`) run a few suites: CARDATLAS_TEST_TARGETS names their
// test targets, and the package keeps only those, the executable their tests start, and what
// these need (its library products serve the Benchmarks package only), so that the sanitized build compiles half as much.
if let wanted = Context.environment["CARDATLAS_TEST_TARGETS"] {
  let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
  var kept = Set<String>()
  var pending = wanted.split(separator: ",").map(String.init) + ["CardAtlasCLI"]
  while let name = pending.popLast() {
    guard let target = byName[name], kept.insert(name).inserted else { continue }
    for dependency in target.dependencies {
      switch dependency {
      case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
      default: break
      }
    }
  }
  package.targets.removeAll { !kept.contains($0.name) }
  package.products.removeAll { $0.name != "cardatlas" }
}
