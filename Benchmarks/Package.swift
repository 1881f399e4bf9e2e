// swift-tools-version: 6.1
// The index benchmarks, kept out of the root package so that its `swift build` and `swift test`
// never build package-benchmark. Run with `swift package benchmark` from this folder (README.md).
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
  ],
  targets: [
    .executableTarget(
      name: "IndexBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "SpatialIndex", package: "CardAtlas"),
        .product(name: "Datasets", package: "CardAtlas"),
        .product(name: "IndexBaselines", package: "CardAtlas"),
      ],
      path: "Benchmarks/IndexBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    )
  ],
  swiftLanguageModes: [.v6]
)
