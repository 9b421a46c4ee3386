import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A deliberate data race that CI runs under ThreadSanitizer to prove `.ci/tsan-check` can fail.
///
/// Kept out of every normal run: it is enabled only when `TEMPO_TSAN_CANARY=1`. Without TSan it passes (the
/// final count is not checked: lost updates are the point); under TSan it must produce a report.
@Suite struct TSanCanaryTests {
    /// A counter with no synchronization at all, marked `@unchecked Sendable` on purpose.
    private final class UnguardedCounter: @unchecked Sendable {
        var value = 0
    }

    static var isEnabled: Bool {
        guard let text = getenv("TEMPO_TSAN_CANARY") else { return false }
        return String(cString: text) == "1"
    }

    @Test(
        "two threads incrementing an unguarded counter race (a canary for the ThreadSanitizer check)",
        .enabled(if: isEnabled, "set TEMPO_TSAN_CANARY=1 to run the deliberate race")
    )
    func unguardedCounterRaces() {
        let counter = UnguardedCounter()
        RealThreads.run(count: 2) { _ in
            for _ in 0..<10_000 { counter.value += 1 }
        }
        #expect(counter.value > 0)
    }
}
