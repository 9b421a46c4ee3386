// swift-tools-version: 6.2
// Measures the drift of 1 ms ticks: a Task.sleep loop, swift-async-algorithms' AsyncTimerSequence and Tempo's
// AsyncTickSequence. A separate package so that users of Tempo never build swift-async-algorithms.
import PackageDescription

let package = Package(
    name: "Drift",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "Tempo", path: "../.."),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        .executableTarget(
            name: "drift",
            dependencies: [
                .product(name: "Tempo", package: "Tempo"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .treatAllWarnings(as: .error)]
        )
    ]
)
