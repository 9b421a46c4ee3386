import Clocks
import Tempo
import TempoTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ClockScheduler` on swift-clocks' clocks: the scheduler's own guarantees.
@Suite struct ClockSchedulerTests {
    static let wallStart = TimerInstant(offset: .seconds(1_767_225_600))

    @Test func anActionRunsWhenTheTestClockReachesItsDeadlineAndNotBefore() async throws {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        _ = scheduler.schedule(at: TimerInstant(offset: .seconds(1)), leeway: .zero, clock: .monotonic) {
            log.record("ran at \(scheduler.now(.monotonic))")
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .milliseconds(999))
        #expect(log.all.isEmpty)
        #expect(scheduler.pendingCount == 1)
        await clock.advance(by: .milliseconds(1))
        try #require(await eventually { log.all.count == 1 })
        #expect(log.all == ["ran at 1.0 seconds"])
        #expect(scheduler.pendingCount == 0)
        try await clock.checkSuspension()
    }

    @Test func equalDeadlinesRunInSchedulingOrderAcrossTimerClocks() async throws {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        let second = TimerInstant(offset: .seconds(2))
        _ = scheduler.schedule(at: second, leeway: .zero, clock: .monotonic) { log.record("a") }
        _ = scheduler.schedule(at: Self.wallStart + .seconds(2), leeway: .zero, clock: .wall) { log.record("b") }
        _ = scheduler.schedule(at: second, leeway: .milliseconds(5), clock: .continuous) { log.record("c") }
        _ = scheduler.schedule(at: TimerInstant(offset: .seconds(1)), leeway: .zero, clock: .wall) {
            log.record("wall 1 s after 2026 (due at once)")
        }
        _ = scheduler.schedule(at: .zero + .seconds(1), leeway: .zero, clock: .monotonic) { log.record("first") }
        try #require(await eventually { log.all.count == 1 })
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .seconds(2))
        try #require(await eventually { log.all.count == 5 })
        #expect(log.all == ["wall 1 s after 2026 (due at once)", "first", "a", "b", "c"])
    }

    @Test func cancelledActionsNeverRunAndAnEarlierDeadlineReplacesTheSleep() async throws {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        let late = scheduler.schedule(at: .zero + .seconds(10), leeway: .zero, clock: .monotonic) {
            log.record("late")
        }
        try #require(await clock.waitForSleeper())
        _ = scheduler.schedule(at: .zero + .seconds(1), leeway: .zero, clock: .monotonic) { log.record("early") }
        scheduler.cancel(late)
        scheduler.cancel(late)  // stale: harmless
        await clock.advance(by: .seconds(1))
        try #require(await eventually { log.all.count == 1 })
        await clock.advance(by: .seconds(20))
        #expect(log.all == ["early"])
        #expect(scheduler.pendingCount == 0)
        try await clock.checkSuspension()
    }

    @Test func cancellingTheLastPendingActionEndsTheSleepingTask() async throws {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let action = scheduler.schedule(at: .zero + .seconds(10), leeway: .zero, clock: .monotonic) {}
        try #require(await clock.waitForSleeper())
        scheduler.cancel(action)
        try #require(await clock.waitForNoSleeper())
    }

    @Test func theWallClockIsTheInjectedClockShiftedToItsStart() async {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        await clock.advance(by: .seconds(90))
        #expect(scheduler.now(.monotonic) == .zero + .seconds(90))
        #expect(scheduler.now(.continuous) == .zero + .seconds(90))
        #expect(scheduler.now(.wall) == Self.wallStart + .seconds(90))
    }

    @Test func anActionMayScheduleAndCancelFromInsideItself() async throws {
        let clock = TestClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        _ = scheduler.schedule(at: .zero + .seconds(1), leeway: .zero, clock: .monotonic) {
            log.record("outer")
            _ = scheduler.schedule(at: .zero, leeway: .zero, clock: .monotonic) { log.record("overdue inner") }
            let never = scheduler.schedule(at: .zero + .seconds(5), leeway: .zero, clock: .monotonic) {
                log.record("never")
            }
            scheduler.cancel(never)
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .seconds(10))
        try #require(await eventually { log.all.count == 2 })
        #expect(log.all == ["outer", "overdue inner"])
        #expect(scheduler.pendingCount == 0)
    }

    /// `ImmediateClock` yields many times per sleep, so this waits up to 60 s when the suite loads the executor.
    ///
    /// Not run under the sanitizers (CI sets `TSAN_OPTIONS` / `ASAN_OPTIONS` for those runs): `ImmediateClock`'s
    /// sleep waits on detached background-priority tasks (swift-concurrency-extras' `megaYield`), and in CI's
    /// ThreadSanitizer run of the whole suite they did not run for 60 s, twice in a row, so the first tick never
    /// came (the clock had moved to it). It runs in the plain and Dispatch-backend runs.
    @Test(
        .enabled(
            if: getenv("TSAN_OPTIONS") == nil && getenv("ASAN_OPTIONS") == nil,
            "ImmediateClock's background-priority yields starve under the sanitizers"))
    func onAnImmediateClockHourlyTicksRunBackToBackInOrder() async throws {
        let clock = ImmediateClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        let timer = try TempoTimer.every(
            .seconds(3600), repeats: .times(6), delivery: .immediate, scheduler: scheduler
        ) { tick in
            log.record("\(tick.index)@\(tick.due.offset.components.seconds / 3600)h")
        }
        let start = ContinuousClock.now
        // Wait with a real sleep, not a spin of yields: a spinning test holds one of the cooperative pool's threads,
        // and under ThreadSanitizer with CLI tests holding the other, the scheduler's wake task starved for 60 s.
        while log.all.count < 6 && start.duration(to: .now) < .seconds(60) {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(log.all == (1...6).map { "\($0)@\($0)h" })
        #expect(scheduler.now(.monotonic) == .zero + .seconds(6 * 3600))
        #expect(timer.state == .finished)
    }
}

extension TestClock<Duration> {
    /// Yields until no task sleeps on the clock, giving up after 10 s of real time and 10,000 checks (see
    /// `YieldingPatience`).
    ///
    /// - Returns: Whether no task was asleep.
    func waitForNoSleeper() async -> Bool {
        var patience = YieldingPatience(timeout: .seconds(10))
        while await patience.yield() {
            if (try? await checkSuspension()) != nil { return true }
        }
        return false
    }
}
