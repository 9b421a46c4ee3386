import Clocks
import Tempo
import TempoTesting
import Testing

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

    /// On a clock whose sleeps return at once (moved to their deadline), timers run back to back, in order.
    ///
    /// The clock is `InstantClock`, not swift-clocks' `ImmediateClock`: each `ImmediateClock` sleep awaits 20
    /// detached background-priority tasks, which starved for over 60 s when the suite loaded the executor (issue #25:
    /// the test failed on a fresh clone at load 5). `InstantClock` behaves the same for the scheduler (the clock is at
    /// the deadline when the sleep returns) and costs one yield per sleep, so the work is bounded; the test waits for
    /// the sixth tick itself, with a bound that only catches a hang.
    @Test func onAnImmediateClockHourlyTicksRunBackToBackInOrder() async throws {
        let clock = InstantClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: Self.wallStart)
        let log = EventLog()
        let (sixthTick, sixthTickSeen) = AsyncStream.makeStream(of: Void.self)
        let timer = try TempoTimer(
            .every(.seconds(3600), repeats: .times(6), delivery: .immediate), scheduler: scheduler
        ) { tick in
            log.record("\(tick.index)@\(tick.due.offset.components.seconds / 3600)h")
            if tick.index == 6 { sixthTickSeen.finish() }
        }.start()
        let hang = Task {
            try await Task.sleep(for: .seconds(600))
            sixthTickSeen.finish()
        }
        for await _ in sixthTick {}
        hang.cancel()
        #expect(log.all == (1...6).map { "\($0)@\($0)h" })
        #expect(scheduler.now(.monotonic) == .zero + .seconds(6 * 3600))
        // The timer becomes finished once the sixth handler has returned.
        #expect(await eventually { timer.state == .finished })
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
