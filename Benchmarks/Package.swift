// swift-tools-version: 6.1
// Benchmarks for Tempo, in their own package so that users of the library never build them.
// Run from this folder: `swift package benchmark --no-progress` (see README.md).
import PackageDescription

let package = Package(
    name: "TempoBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Tempo", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // mallinfo2 and getrusage, which the Glibc module does not expose conveniently.
        .target(name: "CProcessStats", path: "Sources/CProcessStats"),
        // The timing wheel against one DispatchSourceTimer per timer, SwiftNIO and Task.sleep.
        .executableTarget(
            name: "WheelBenchmarks",
            dependencies: [
                "CProcessStats",
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/WheelBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A second check of the wheel's figures with its own loops (`swift run -c release WheelProbe`).
        .executableTarget(
            name: "WheelProbe",
            dependencies: ["CProcessStats", .product(name: "Tempo", package: "Tempo")],
            path: "Benchmarks/WheelProbe"
        ),
        // Arm + cancel of TempoTimers against Dispatch sources with its own loops, and the cost of creating a timer
        // against allocating an object of its size (`swift build -c release --product ArmProbe`; issue #44).
        .executableTarget(
            name: "ArmProbe",
            dependencies: [.product(name: "Tempo", package: "Tempo")],
            path: "Benchmarks/ArmProbe"
        ),
        // Instructions per tick of a repeating TempoTimer against a clock_nanosleep loop, under callgrind
        // (`Scripts/tick-instructions.sh`; issue #44's CPU-per-tick row, a second way).
        .executableTarget(
            name: "TickProbe",
            dependencies: [.product(name: "Tempo", package: "Tempo")],
            path: "Benchmarks/TickProbe"
        ),
        // Mass expiry of TempoTimers against Dispatch sources, and a check that each timer's handlers stay serial
        // (`swift build -c release --product ExpiryProbe`; issue #44).
        .executableTarget(
            name: "ExpiryProbe",
            dependencies: [.product(name: "Tempo", package: "Tempo")],
            path: "Benchmarks/ExpiryProbe"
        ),
        // The instrument hook's per-tick cost, no instrument against a no-op one, with its own loops
        // (`swift run -c release InstrumentProbe`): a second check of TickerBenchmarks' `InstrumentTick` rows.
        .executableTarget(
            name: "InstrumentProbe",
            dependencies: [
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "Benchmarks/InstrumentProbe"
        ),
        // SharedTicker fan-out: cost per subscriber per tick at 1, 1k and 100k subscribers.
        .executableTarget(
            name: "TickerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "Benchmarks/TickerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The wheel's toolkit (expiring dictionary, rate limiters) against hand-written baselines in the same run.
        .executableTarget(
            name: "ToolkitBenchmarks",
            dependencies: [
                "CProcessStats",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "Benchmarks/ToolkitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A second check of ToolkitBenchmarks with its own loops, baselines and CPU-time clock
        // (`swift run -c release ToolkitProbe`, issue #44).
        .executableTarget(
            name: "ToolkitProbe",
            dependencies: [
                "CProcessStats",
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "Benchmarks/ToolkitProbe"
        ),
        // Calendar plans: next-date cost of cron expressions against Foundation's Calendar, and bytes per plan.
        .executableTarget(
            name: "PlanBenchmarks",
            dependencies: [
                "CProcessStats",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "TempoPlans", package: "Tempo"),
                .product(name: "TempoTesting", package: "Tempo"),
            ],
            path: "Benchmarks/PlanBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

for target in package.targets where target.name != "CProcessStats" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
        ]
}
