// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that users of Tempo never build them.
// Run: swift package benchmark --target TickerBenchmarks --no-progress
let package = Package(
    name: "TempoBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Tempo", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TickerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "TickerBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
