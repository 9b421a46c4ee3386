// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Tempo",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Tempo", targets: ["Tempo"]),
        .library(name: "TempoTesting", targets: ["TempoTesting"]),
        .library(name: "TempoPlans", targets: ["TempoPlans"]),
        .library(name: "TempoJobs", targets: ["TempoJobs"]),
        .library(name: "TempoMetrics", targets: ["TempoMetrics"]),
        .library(name: "TempoTracing", targets: ["TempoTracing"]),
        .library(name: "TempoPostgres", targets: ["TempoPostgres"]),
        .library(name: "TempoJobsPage", targets: ["TempoJobsPage"]),
        .executable(name: "tempo", targets: ["tempo"]),
    ],
    traits: [
        .trait(
            name: "CLI",
            description: """
                Builds the `tempo` command-line tool, the only product that needs swift-argument-parser, \
                swift-subprocess and hdrhistogram-swift. On by default; a package that uses only the libraries can \
                depend on Tempo with `traits: []` so that it never resolves those packages.
                """
        ),
        .trait(
            name: "Jobs",
            description: """
                Builds `TempoJobs`, the only library product that needs swift-log and swift-service-lifecycle. On by \
                default; a package that depends on Tempo with `traits: []` resolves neither, and names \
                `traits: ["Jobs"]` to use `TempoJobs`.
                """
        ),
        .trait(
            name: "Observability",
            description: """
                Builds `TempoMetrics` and `TempoTracing`, the only library products that need swift-metrics and \
                swift-distributed-tracing (the tests also use swift-prometheus). On by default; a package that depends \
                on Tempo with `traits: []` resolves none of them, and names `traits: ["Observability"]` to use \
                `TempoMetrics` (`TempoTracing` also needs `Jobs`).
                """
        ),
        .trait(
            name: "Postgres",
            description: """
                Builds `TempoPostgres` (jobs run once per planned date across replicas sharing a PostgreSQL \
                database), the only product that needs vapor/postgres-nio. Off by default: name \
                `traits: ["Jobs", "Postgres"]` to use it.
                """,
            enabledTraits: ["Jobs"]
        ),
        .trait(
            name: "Dashboard",
            description: """
                Builds `TempoJobsPage` (the operator's web page of the jobs, mounted on an app's Hummingbird \
                router), the only product that needs hummingbird-project/hummingbird. Off by default: name \
                `traits: ["Jobs", "Dashboard"]` to use it.
                """,
            enabledTraits: ["Jobs"]
        ),
        .default(enabledTraits: ["CLI", "Jobs", "Observability"]),
        .trait(
            name: "TSanVisibleLocks",
            description: """
                Builds TempoMutex on pthread_mutex_t instead of Synchronization.Mutex, whose contended path \
                ThreadSanitizer cannot see on Linux. For CI's ThreadSanitizer run only.
                """
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // No traits: the page needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Thin C shims for Linux system calls that Glibc's module map does not expose (timerfd, prctl).
        .target(name: "CTempoShims"),
        // The package's one lock type (internal: no product). See Sources/TempoLocks/TempoMutex.swift.
        .target(name: "TempoLocks"),
        .target(name: "Tempo", dependencies: ["CTempoShims", "TempoLocks"]),
        .target(name: "TempoTesting", dependencies: ["Tempo", "TempoLocks"]),
        // C helpers of the measuring tools (absolute sleeps, the allocator's counters): not part of Tempo.
        .target(name: "CTempoToolsShims"),
        // What only the `tempo` command needs: latency probes, the mass-timer bench, the overlap gate of
        // `tempo every`. Internal to the package (no product), so importers of Tempo never see it.
        .target(name: "TempoTools", dependencies: ["Tempo", "TempoLocks", "CTempoShims", "CTempoToolsShims"]),
        // Calendar plans and cron text on Tempo's wall-clock timers (uses Foundation for Calendar and TimeZone).
        .target(name: "TempoPlans", dependencies: ["Tempo", "TempoLocks"]),
        // Async jobs on a schedule, as a swift-service-lifecycle `Service` (uses swift-log; the core stays free of it).
        .target(
            name: "TempoJobs",
            dependencies: [
                "Tempo",
                "TempoPlans",
                "TempoLocks",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Jobs"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Jobs"])),
            ]
        ),
        // Timer metrics on swift-metrics: a TimerInstrument that feeds the app's metrics backend (issue #27).
        .target(
            name: "TempoMetrics",
            dependencies: [
                "Tempo",
                "TempoLocks",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
            ]
        ),
        // ServiceContext across timers and job runs as spans, on swift-distributed-tracing (issue #27).
        .target(
            name: "TempoTracing",
            dependencies: [
                "Tempo",
                "TempoJobs",
                "TempoPlans",
                .product(
                    name: "Instrumentation", package: "swift-distributed-tracing",
                    condition: .when(traits: ["Observability"])),
                .product(
                    name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
            ]
        ),
        // TempoJobs' claims and cursors on PostgreSQL, for replicas (sources compile to nothing without the trait).
        .target(
            name: "TempoPostgres",
            dependencies: [
                "Tempo",
                "TempoJobs",
                "TempoLocks",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Jobs"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ]
        ),
        // The operator's page of the jobs on Hummingbird 2 (issue #45; sources compile to nothing without the trait).
        .target(
            name: "TempoJobsPage",
            dependencies: [
                "Tempo",
                "TempoJobs",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Dashboard"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Dashboard"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Jobs"])),
            ]
        ),
        // The browser test's app: the page over two jobs on PostgreSQL (not a product; a stub without both traits).
        .executableTarget(
            name: "tempo-page-demo",
            dependencies: [
                "TempoJobs",
                "TempoJobsPage",
                "TempoPostgres",
                "TempoPlans",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Jobs"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Jobs"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Dashboard"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ]
        ),
        // The end-to-end SIGTERM test's subject: one slow job in a ServiceGroup (not a product).
        .executableTarget(
            name: "tempo-jobs-demo",
            dependencies: [
                "Tempo",
                "TempoJobs",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Jobs"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Jobs"])),
            ]
        ),
        // Replica processes for TempoPostgres' process tests and measurement (not a product; a stub without the trait).
        .executableTarget(
            name: "tempo-pg-replica",
            dependencies: [
                "Tempo",
                "TempoPostgres",
                "TempoJobs",
                "TempoPlans",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Postgres"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ]
        ),
        .executableTarget(
            name: "tempo",
            dependencies: [
                "Tempo",
                "TempoLocks",
                "TempoTools",
                "CTempoToolsShims",
                "TempoPlans",
                // `tempo jobs` (issue #45): a JSON store with Jobs, a PostgreSQL database with Postgres too.
                .target(name: "TempoJobs", condition: .when(traits: ["Jobs"])),
                .target(name: "TempoPostgres", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Postgres"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                .product(
                    name: "Subprocess", package: "swift-subprocess",
                    condition: .when(platforms: [.linux, .macOS], traits: ["CLI"])),
                .product(name: "Histogram", package: "hdrhistogram-swift", condition: .when(traits: ["CLI"])),
            ]
        ),
        .testTarget(
            name: "TempoTests",
            dependencies: [
                "Tempo",
                "TempoLocks",
                "TempoTesting",
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(name: "TempoTestingTests", dependencies: ["Tempo", "TempoLocks", "TempoTesting"]),
        .testTarget(name: "TempoToolsTests", dependencies: ["Tempo", "TempoTools"]),
        // Runs the built `tempo` binary end to end (the dependency makes `swift build --build-tests` build it).
        .testTarget(name: "TempoCLITests", dependencies: ["tempo"]),
        .testTarget(
            name: "TempoPlansTests",
            dependencies: ["Tempo", "TempoPlans", "TempoTesting", "TempoLocks"]
        ),
        // The dependency on the demo makes `swift build --build-tests` build the binary the SIGTERM test runs.
        .testTarget(
            name: "TempoJobsTests",
            dependencies: [
                "Tempo",
                "TempoJobs",
                "TempoPlans",
                "TempoTesting",
                "TempoLocks",
                "tempo-jobs-demo",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "TempoMetricsTests",
            dependencies: [
                "Tempo",
                "TempoMetrics",
                "TempoTesting",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "TempoTracingTests",
            dependencies: [
                "Tempo",
                "TempoJobs",
                "TempoPlans",
                "TempoTracing",
                "TempoTesting",
                "TempoLocks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The page's router tests (compile to nothing without the Dashboard trait).
        .testTarget(
            name: "TempoJobsPageTests",
            dependencies: [
                "TempoJobs",
                "TempoJobsPage",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Dashboard"])),
                .product(
                    name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Dashboard"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Dashboard"])),
            ]
        ),
        // Against a throwaway PostgreSQL server (skipped without its binaries, unless TEMPO_REQUIRE_POSTGRES=1).
        .testTarget(
            name: "TempoPostgresTests",
            dependencies: [
                "TempoJobs",
                "TempoPostgres",
                "TempoLocks",
                "tempo-pg-replica",
                // `tempo jobs --postgres` runs end to end (JobsCommandTests).
                "tempo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
            ]
        ),
    ]
)

for target in package.targets where !target.name.hasPrefix("CTempo") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            .treatAllWarnings(as: .error),
            .define("TEMPO_TSAN_VISIBLE_LOCKS", .when(traits: ["TSanVisibleLocks"])),
        ]
}
