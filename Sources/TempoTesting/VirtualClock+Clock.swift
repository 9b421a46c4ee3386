public import Tempo

/// `VirtualClock` is a `Clock` of its monotonic time, so async code that takes a `Clock` runs on virtual
/// time: `sleep(until:tolerance:)` returns when a test advances past the deadline.
///
/// Async code does not run inside ``advance(by:)``: advancing resumes the sleeping task, which then runs
/// on its executor. Before advancing, wait until the code under test is asleep (``waitForPending(_:timeout:)``),
/// and after advancing wait for the effect you expect.
extension VirtualClock: Clock {
    /// Instants are `TimerInstant`s of the monotonic clock.
    public typealias Instant = TimerInstant
    /// Durations are `Swift.Duration`.
    public typealias Duration = Swift.Duration

    /// The current virtual instant of the monotonic clock.
    public var now: TimerInstant {
        engine.noteClockUse()
        return now(.monotonic)
    }

    /// One nanosecond.
    public var minimumResolution: Duration {
        .nanoseconds(1)
    }

    /// Suspends the task until the monotonic clock reaches `deadline`; see `TempoClock.sleep(until:tolerance:)`.
    ///
    /// - Parameters:
    ///   - deadline: The monotonic instant to wake at; one not in the future returns at once.
    ///   - tolerance: Ignored by virtual time, but validated.
    /// - Throws: `CancellationError` when the task is cancelled (the deadline is released at once).
    public func sleep(until deadline: TimerInstant, tolerance: Duration? = nil) async throws {
        engine.noteClockUse()
        // The same sleep as `clock(.monotonic)`'s, on a scheduler that lets auto-advancing see the task wake.
        let tracker = SleepTracker(engine: engine)
        defer { tracker.sleepEnded() }
        try await TempoClock(.monotonic, scheduler: tracker).sleep(until: deadline, tolerance: tolerance)
    }

    /// A `Clock` for one of this scheduler's clocks, for example `clock(.wall)`.
    ///
    /// - Parameter timerClock: The clock to read and sleep on.
    /// - Returns: A `TempoClock` on this virtual clock.
    public func clock(_ timerClock: TimerClock) -> TempoClock {
        TempoClock(timerClock, scheduler: self)
    }

    /// Yields until at least `count` actions are pending, that is until the async code under test is
    /// asleep on this clock, or until `timeout` of real time has passed *and* the wait has yielded at least
    /// 10,000 times.
    ///
    /// The second condition keeps a starved test from failing: when every thread of the cooperative pool is
    /// blocked (by synchronous work elsewhere in the process), neither this wait nor the code under test runs,
    /// and the real time that passes meanwhile says nothing about the code under test. A wait that runs
    /// yields thousands of times per millisecond, so when nothing is starved it gives up after `timeout`.
    ///
    /// - Parameters:
    ///   - count: The number of pending actions to wait for.
    ///   - timeout: The real time to give up after; the wait itself only yields.
    /// - Returns: Whether `count` actions were pending.
    @discardableResult
    public func waitForPending(_ count: Int = 1, timeout: Duration = .seconds(10)) async -> Bool {
        var patience = YieldingPatience(timeout: timeout)
        while pendingCount < count {
            guard await patience.yield() else { return false }
        }
        return true
    }
}

/// The give-up rule of the waits that yield: `timeout` of real time *and* a minimum number of yields, so that a
/// wait that could not run (a starved cooperative pool) does not count the time it was not running.
package struct YieldingPatience {
    private let start = ContinuousClock.now
    private let timeout: Duration
    private let minimumYields: Int
    private var yields = 0

    /// - Parameters:
    ///   - timeout: The real time to give up after.
    ///   - minimumYields: The yields to make before giving up, however much time passed.
    package init(timeout: Duration, minimumYields: Int = 10_000) {
        self.timeout = timeout
        self.minimumYields = minimumYields
    }

    /// Whether to go on waiting; yields first when it does.
    package mutating func yield() async -> Bool {
        if yields >= minimumYields, start.duration(to: .now) >= timeout { return false }
        yields += 1
        await Task.yield()
        return true
    }
}
