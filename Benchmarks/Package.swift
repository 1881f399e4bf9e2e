// swift-tools-version: 6.1
// The index and command benchmarks, kept out of the root package so that its `swift build` and
// `swift test` never build package-benchmark. Run with `swift package benchmark` from this folder
// (README.md).
import PackageDescription

let package = Package(
  name: "CardAtlasBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "CardAtlas", path: ".."),
    // Only the malloc interposer trait: the default traits add the Linux Swift 6.3 ARC runtime
    // interposer (swift-runtime-interposer), which this setup does not provide. ARC counters
    // (retainCount...) are not used here; malloc counters are.
    .package(
      url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1",
      traits: ["MallocInterposer"]),
    // NIOCore's ByteBuffer, which the command path reads requests from and writes replies to.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
  ],
  targets: [
    // The point count, seed and dataset generator both suites use.
    .target(
      name: "BenchmarkData", dependencies: [.product(name: "Datasets", package: "CardAtlas")],
      path: "Benchmarks/BenchmarkData"),
    .executableTarget(
      name: "IndexBenchmarks",
      dependencies: [
        "BenchmarkData",
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "SpatialIndex", package: "CardAtlas"),
        .product(name: "Datasets", package: "CardAtlas"),
        .product(name: "IndexBaselines", package: "CardAtlas"),
      ],
      path: "Benchmarks/IndexBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    .executableTarget(
      name: "CommandBenchmarks",
      dependencies: [
        "BenchmarkData",
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "Datasets", package: "CardAtlas"),
        .product(name: "Geodesy", package: "CardAtlas"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Commands", package: "CardAtlas"),
        .product(name: "Keyspace", package: "CardAtlas"),
        .product(name: "RESP", package: "CardAtlas"),
        .product(name: "LoadGen", package: "CardAtlas"),
        .product(name: "RESPClient", package: "CardAtlas"),
      ],
      path: "Benchmarks/CommandBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
