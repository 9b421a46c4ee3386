#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide allocation count of the interposer in `.ci/alloc-counter.c`, when it is preloaded.
///
/// CI builds the interposer and runs the allocation suites with `LD_PRELOAD` set; a plain `swift test` has no
/// counter, and the suites are then disabled (their `.enabled(if:)` says why). The count covers every thread, so
/// a measurement runs alone (CI filters to the allocation suites) and allows a small number of unrelated
/// allocations made by the test runner.
enum AllocationCounter {
    private typealias Read = @convention(c) () -> UInt64

    /// Whether the interposer is loaded.
    static var isAvailable: Bool { read != nil }

    private static let read: Read? = {
        guard let symbol = dlsym(nil, "tempo_alloc_count") else { return nil }
        return unsafeBitCast(symbol, to: Read.self)
    }()

    /// The number of `malloc`-family calls so far in this process.
    static func count() -> UInt64 {
        read?() ?? 0
    }
}
