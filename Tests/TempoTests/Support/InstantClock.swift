import TempoLocks

/// A clock on which every sleep returns at once with the clock moved to its deadline, like swift-clocks'
/// `ImmediateClock`, but without its `megaYield`: `ImmediateClock.sleep` then awaits 20 detached tasks of background
/// priority, which starve for minutes when the test executor is busy (issue #25), so the work a test on it needs is
/// not bounded. Here a sleep costs one `Task.yield()`, whatever else the machine does.
///
/// Thread-safety: every member may be used from any thread or task.
final class InstantClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = TempoMutex(Instant(offset: .zero))

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .zero }

    /// Moves the clock to `deadline` (never backwards) and returns after one yield.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
        await Task.yield()
        try Task.checkCancellation()
    }
}
