import Tempo
import TempoTesting
import Testing

/// `VirtualClock.run { }`: virtual time that jumps to the next deadline whenever the code under test has settled.
@Suite struct AutoAdvanceTests {
    @Test func aDayOfHourlyAndDailyTimersAndACountdownRunsInMillisecondsOfWallTime() async throws {
        let clock = VirtualClock()
        let log = EventLog()
        // Measured inside the run: returning from it waits for the caller's executor, which other tests of a
        // parallel run may keep busy for seconds; that wait is not virtual time's doing.
        let elapsed = try await clock.run {
            let wallStart = ContinuousClock.now
            let registry = TimerRegistry<String>(scheduler: clock)
            try registry.schedule("hourly", .every(.seconds(3600))) { tick in
                log.record("hourly \(tick.index) at \(tick.due.offset.components.seconds / 3600) h")
            }
            try registry.schedule("daily", .every(.seconds(86_400))) { tick in
                log.record("daily \(tick.index) at \(tick.due.offset.components.seconds / 3600) h")
            }
            let countdown = try Countdown(
                duration: .seconds(1800), every: .seconds(600), clock: .monotonic, scheduler: clock,
                onTick: { remaining in log.record("countdown \(remaining.components.seconds / 60) min") },
                onFinish: { log.record("countdown done") })
            countdown.start()
            try await clock.sleep(for: .seconds(86_400 + 1800))
            log.record("slept a day")
            registry.cancelAll()
            return wallStart.duration(to: .now)
        }
        // Alone, this run takes about 20 ms of wall time (`swift test --filter aDayOfHourly`: 18-19 ms in three runs).
        // Beside the whole suite on a 2-core machine, the threads that run its steps can be starved for seconds (3.3 s
        // once, more under ThreadSanitizer), so the bound only shows the day was virtual (a real one is 88,200 s).
        #expect(elapsed < .seconds(300), "a virtual day took \(elapsed) of wall time")
        let hourly = (1...24).map { "hourly \($0) at \($0) h" }
        // At 24 h the daily timer runs before the 24th hourly tick: it was armed first (at 0 h, the hourly one at
        // 23 h), and equal deadlines run in arming order.
        let expected =
            ["countdown 20 min", "countdown 10 min", "countdown done"] + hourly.dropLast()
            + ["daily 1 at 24 h", hourly.last!, "slept a day"]
        #expect(log.all == expected)
        #expect(clock.now(.monotonic) == .zero + .seconds(86_400 + 1800))
        #expect(clock.pendingCount == 0)
    }

    @Test func theTickerDebouncerThrottlerAndWheelRunOnAutoAdvancingTime() async throws {
        let clock = VirtualClock()
        let log = EventLog()
        try await clock.run {
            let ticker = try SharedTicker(.every(.seconds(10)), scheduler: clock)
            let subscription = try ticker.subscribe { tick in log.record("ticker \(tick.index)") }
            let debouncer = try Debouncer<Int>(delay: .seconds(3), scheduler: clock) { log.record("debounced \($0)") }
            let throttler = try Throttler<Int>(every: .seconds(5), edge: .trailing, scheduler: clock) {
                log.record("throttled \($0)")
            }
            let wheel = try TimingWheel(configuration: .init(resolution: .seconds(1)), scheduler: clock)
            _ = try wheel.schedule(after: .seconds(7)) { log.record("wheel") }
            debouncer.call(1)
            try await clock.sleep(for: .seconds(1))
            debouncer.call(2)
            _ = throttler.call(1)
            _ = throttler.call(2)
            try await clock.sleep(for: .seconds(20))
            subscription.cancel()
        }
        // At 4 s the debouncer (last call at 1 s), at 6 s the throttler's window (opened at 1 s), at 7 s (or by the
        // wheel's 1 s tick after it) the wheel, at 10 and 20 s the ticker.
        #expect(log.all == ["debounced 2", "throttled 2", "wheel", "ticker 1", "ticker 2"])
    }

    @Test func sleepsTickSequencesAndTimeoutsOnTheClockAdvanceByThemselves() async throws {
        let clock = VirtualClock()
        let (indices, timedOut, value) = try await clock.run {
            var indices: [Int] = []
            for await tick in try clock.ticks(every: .seconds(60), repeats: .times(3)) {
                indices.append(tick.index)
            }
            let timedOut: Bool
            do {
                _ = try await withTimeout(after: .seconds(5), clock: clock) {
                    try await clock.sleep(for: .seconds(60))
                }
                timedOut = false
            } catch is TimeoutError {
                timedOut = true
            }
            let value = try await withTimeout(after: .seconds(5), clock: clock) {
                try await Task.sleep(for: .seconds(1), clock: clock)
                return 42
            }
            return (indices, timedOut, value)
        }
        #expect(indices == [1, 2, 3])
        #expect(timedOut)
        #expect(value == 42)
        #expect(clock.now(.monotonic) == .zero + .seconds(180 + 5 + 1))
        #expect(clock.pendingCount == 0)
    }

    @Test func workTheClockCannotSeeDoesNotHoldTimeUnlessItIsWrappedInHoldingTime() async throws {
        let clock = VirtualClock()
        // A real sleep stands for I/O: without a hold, the timeout on the virtual clock fires first.
        let unheld = try await clock.run {
            do {
                try await withTimeout(after: .seconds(1), clock: clock) {
                    try await Task.sleep(for: .seconds(3600))
                }
                return "finished"
            } catch is TimeoutError {
                return "timed out"
            }
        }
        #expect(unheld == "timed out")
        let held = try await clock.run {
            try await withTimeout(after: .seconds(1), clock: clock) {
                try await clock.holdingTime {
                    try await Task.sleep(for: .milliseconds(20))
                }
                return "finished"
            }
        }
        #expect(held == "finished")
        #expect(clock.now(.monotonic) == .zero + .seconds(1))
    }

    @Test func aBodyWaitingOnNothingTheClockKnowsStallsAndIsCancelled() async throws {
        let clock = VirtualClock()
        let error = await #expect(throws: VirtualClock.AutoAdvanceError.self) {
            try await clock.run(stallTimeout: .milliseconds(50)) {
                try await Task.sleep(for: .seconds(3600))
            }
        }
        #expect(error?.code == .stalled)
        #expect(error?.value == "\(Duration.milliseconds(50))")
    }

    @Test func aRepeatingTimerTheBodyNeverStopsEndsTheRunAtTheStepLimit() async throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.every(.seconds(1), delivery: .immediate), scheduler: clock) { _ in }.start()
        let error = await #expect(throws: VirtualClock.AutoAdvanceError.self) {
            try await clock.run(maximumSteps: 10) {
                try await clock.sleep(for: .seconds(3600))
            }
        }
        #expect(error?.code == .tooManySteps)
        #expect(error?.value == "10")
        #expect(clock.now(.monotonic) == .zero + .seconds(10))
        timer.cancel()
    }

    @Test func outsideRunTheClockStaysManual() async throws {
        let clock = VirtualClock()
        let log = EventLog()
        let timer = try TempoTimer(.after(.seconds(1), delivery: .immediate), scheduler: clock) { _ in
            log.record("fired")
        }.start()
        try await clock.run { try await clock.sleep(for: .milliseconds(500)) }
        #expect(log.all.isEmpty)
        #expect(clock.now(.monotonic) == .zero + .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        #expect(log.all == ["fired"])
        #expect(timer.state == .finished)
    }
}
