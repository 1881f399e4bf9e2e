// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "CardAtlas",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "cardatlas", targets: ["CardAtlasCLI"]),
    .library(name: "Geodesy", targets: ["Geodesy"]),
    .library(name: "SpatialIndex", targets: ["SpatialIndex"]),
    .library(name: "Datasets", targets: ["Datasets"]),
    .library(name: "IndexBaselines", targets: ["IndexBaselines"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
  ],
  targets: [
    // Sphere maths: coordinates, distances, geohash, Web Mercator. No dependencies.
    .target(name: "Geodesy"),
    // Prefetch and spin-wait hints for the index (Swift has no intrinsics for them).
    .target(name: "CPUHints"),
    // The in-memory dynamic index: radius, kNN, box, circles, clusters.
    // Its hot loops work on raw buffers owned by final classes; the runtime exclusivity checks on
    // those classes' properties cost more than the queries themselves.
    .target(
      name: "SpatialIndex", dependencies: ["Geodesy", "CPUHints"],
      swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),
    // Seeded realistic datasets: points clustered around real cities, and a uniform control.
    .target(name: "Datasets", dependencies: ["Geodesy"]),
    // What users would pick instead of our index, for benchmarks: SQLite's R*Tree.
    .target(
      name: "IndexBaselines",
      dependencies: ["Geodesy", "SpatialIndex", .product(name: "GRDB", package: "GRDB.swift")]),
    // `cardatlas bench index`: runs the index workloads and baselines, prints a table or JSON.
    .target(name: "IndexBench", dependencies: ["SpatialIndex", "Datasets", "IndexBaselines"]),
    // Redis RESP framing: incremental request parsing and RESP2/RESP3 reply encoding.
    .target(name: "RESP", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
    .executableTarget(
      name: "CardAtlasCLI",
      dependencies: [
        "IndexBench",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    // A throwaway real redis-server: the oracle the Redis-compatibility tests compare with.
    .target(name: "RedisTestSupport", path: "Tests/RedisTestSupport"),
    .testTarget(name: "GeodesyTests", dependencies: ["Geodesy", "RedisTestSupport"]),
    .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "Datasets"]),
    .testTarget(name: "DatasetsTests", dependencies: ["Datasets"]),
    .testTarget(name: "IndexBaselinesTests", dependencies: ["IndexBaselines", "Datasets"]),
    .testTarget(name: "IndexBenchTests", dependencies: ["IndexBench"]),
    .testTarget(name: "RESPTests", dependencies: ["RESP", "RedisTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
