import Clocks
import Tempo
import Testing

/// Every callback type of Tempo on swift-clocks' `TestClock`, through `ClockScheduler`: just before a deadline
/// nothing happens, at it the handler runs.
@Suite struct ClockSchedulerToolkitTests {
    let clock = TestClock()
    let scheduler: ClockScheduler<TestClock<Duration>>
    let log = EventLog()

    init() {
        scheduler = ClockScheduler(clock: clock, wallClockStart: ClockSchedulerTests.wallStart)
    }

    /// Advances to just before `step` (nothing new may happen), then to it, and waits for `count` events.
    func step(_ step: Duration, expecting count: Int) async -> Bool {
        let before = log.all.count
        guard await clock.waitForSleeper() else { return false }
        await clock.advance(by: step - .nanoseconds(1))
        guard log.all.count == before else { return false }
        await clock.advance(by: .nanoseconds(1))
        return await eventually { log.all.count == count }
    }

    /// Nothing is left pending and no task sleeps on the clock (so nothing outlives the test).
    func isIdle() async -> Bool {
        let scheduler = scheduler
        guard await eventually({ scheduler.pendingCount == 0 }) else { return false }
        return await clock.waitForNoSleeper()
    }

    @Test func aTempoTimerTicksOnTheTestClock() async throws {
        let log = log
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(3)), scheduler: scheduler) { tick in
            log.record("tick \(tick.index) late \(tick.lateness)")
        }.start()
        for count in 1...3 { #expect(await step(.seconds(1), expecting: count)) }
        try #require(await eventually { timer.state == .finished })
        #expect(log.all.allSatisfy { $0.hasSuffix("late 0.0 seconds") })
        try await clock.checkSuspension()
    }

    @Test func aRegistryRunsHourlyAndDailyTimersOnTheTestClock() async throws {
        let log = log
        let registry = TimerRegistry<String>(scheduler: scheduler)
        try registry.schedule("hourly", .every(.seconds(3600), repeats: .times(2))) { _ in log.record("hourly") }
        try registry.schedule("half", .after(.seconds(1800))) { _ in log.record("half") }
        #expect(await step(.seconds(1800), expecting: 1))
        #expect(await step(.seconds(1800), expecting: 2))
        #expect(await step(.seconds(3600), expecting: 3))
        #expect(log.all == ["half", "hourly", "hourly"])
        try #require(await eventually { !registry.contains("hourly") })
        #expect(await isIdle())
    }

    @Test func aSharedTickerDeliversToItsSubscribersOnTheTestClock() async throws {
        let log = log
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: scheduler)
        let every = try ticker.subscribe { tick in log.record("every \(tick.index)") }
        let second = try ticker.subscribe(everyNth: 2) { tick in log.record("second \(tick.index)") }
        #expect(await step(.seconds(1), expecting: 1))
        #expect(await step(.seconds(1), expecting: 3))
        #expect(Set(log.all) == ["every 1", "every 2", "second 2"])
        every.cancel()
        second.cancel()
        try #require(await eventually { !ticker.isTicking })
        #expect(await isIdle())
    }

    @Test func aCountdownCountsDownAndFinishesOnTheTestClock() async throws {
        let log = log
        let countdown = try Countdown(
            duration: .seconds(3), scheduler: scheduler,
            onTick: { remaining in log.record("\(remaining)") }, onFinish: { log.record("done") })
        countdown.start()
        #expect(await step(.seconds(1), expecting: 1))
        #expect(await step(.seconds(1), expecting: 2))
        #expect(await step(.seconds(1), expecting: 3))
        #expect(log.all == ["2.0 seconds", "1.0 seconds", "done"])
        #expect(countdown.phase == .finished)
        #expect(await isIdle())
    }

    @Test func aDebouncerRunsOnceTheCallsStopOnTheTestClock() async throws {
        let log = log
        let debouncer = try Debouncer<Int>(delay: .seconds(2), scheduler: scheduler) { log.record("value \($0)") }
        debouncer.call(1)
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .seconds(1))
        debouncer.call(2)
        #expect(await step(.seconds(2), expecting: 1))
        #expect(log.all == ["value 2"])
        #expect(debouncer.cancel() == false)
        #expect(await isIdle())
    }

    @Test func aThrottlerRunsTheTrailingValueAtTheEndOfItsWindowOnTheTestClock() async throws {
        let log = log
        let throttler = try Throttler<Int>(every: .seconds(1), edge: .both, scheduler: scheduler) {
            log.record("value \($0)")
        }
        #expect(throttler.call(1) == .ranNow)
        try #require(await eventually { log.all.count == 1 })
        #expect(throttler.call(2) == .deferred)
        #expect(throttler.call(3) == .deferred)
        #expect(await step(.seconds(1), expecting: 2))
        #expect(log.all == ["value 1", "value 3"])
        _ = throttler.cancel()
        #expect(await isIdle())
    }

    @Test func aTimingWheelFiresItsTimersOnTheTestClock() async throws {
        let log = log
        do {
            let wheel = try TimingWheel(
                configuration: .init(resolution: .milliseconds(100), delivery: .immediate), scheduler: scheduler)
            _ = try wheel.schedule(after: .milliseconds(500)) { log.record("first") }
            _ = try wheel.schedule(after: .milliseconds(1000)) { log.record("second") }
            #expect(await step(.milliseconds(500), expecting: 1))
            #expect(await step(.milliseconds(500), expecting: 2))
            #expect(log.all == ["first", "second"])
        }
        #expect(await isIdle())
    }
}
