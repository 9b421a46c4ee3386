import Tempo
import TempoTesting
import Testing

/// Trap 1 of issue #10: creating a timer never starts it; the `start()` that creates and starts in one line does.
@Suite struct CreateAndStartTests {
    @Test func anAfterOneShotStartedInTheSameLineIsRunningAndFiresOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record).start()
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        #expect(timer.state == .finished)
    }

    @Test func aStartedOneShotWhoseResultIsDroppedStillFires() throws {
        let clock = VirtualClock()
        let log = TickLog()
        try TempoTimer(.after(.seconds(2)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(2))
        #expect(log.indices == [1])
    }

    @Test func anEveryTimerStartedInTheSameLineTicksOnItsGrid() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(3)), scheduler: clock, log.record).start()
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(2_999))
        #expect(log.indices == [1, 2])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 2, 3])
        timer.start()  // a finished timer starts over
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1, 2, 3, 1])
        timer.cancel()
    }

    @Test func anAtOneShotStartedInTheSameLineIsDueAtItsDeadline() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let deadline = clock.now(.monotonic) + .seconds(5)
        let timer = try TempoTimer(.at(.monotonic(deadline)), scheduler: clock, log.record).start()
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(4_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.map(\.due) == [deadline])
    }

    @Test func initializersCreateAnIdleTimerThatNeverFiresUntilStarted() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record)
        #expect(timer.state == .idle)
        clock.advance(by: .seconds(10))
        #expect(log.count == 0)
        #expect(clock.pendingCount == 0)
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
    }

    @Test func aDeadlineThatPassedDuringTheCallFiresAtOnceByDefault() throws {
        // Issue #13: arming many timers took long enough for the first deadlines to pass, and a `try!` crashed.
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(100)))
        let log = TickLog()
        let deadline = clock.now(.monotonic) - .milliseconds(500)
        let timer = try TempoTimer(.at(.monotonic(deadline)), scheduler: clock, log.record).start()
        #expect(timer.state == .running)
        clock.advance(by: .zero)
        #expect(log.all.map(\.due) == [deadline])
        #expect(log.all.map(\.lateness) == [.milliseconds(500)])
    }

    @Test func aPastDeadlineThrowsWhenAskedTo() throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(100)))
        let deadline = clock.now(.monotonic) - .nanoseconds(1)
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.at(.monotonic(deadline), ifPast: .throw), scheduler: clock) { _ in }.start()
        }
        #expect(error?.code == .invalidInstant)
        #expect(error?.value == "\(deadline)")
        #expect(clock.pendingCount == 0)
    }

    @Test func theRegistryAtFormFollowsTheSameRule() throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(100)))
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("late", .at(.monotonic(clock.now(.monotonic) - .seconds(1))), log.record)
        clock.advance(by: .zero)
        #expect(log.count == 1)
        #expect(throws: TempoError.self) {
            try registry.schedule("late", .at(.monotonic(clock.now(.monotonic) - .seconds(1)), ifPast: .throw)) { _ in }
        }
        #expect(!registry.contains("late"))
    }

    @Test func manyOneShotsArmedWhileTheirDeadlinesPassAllFireOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let start = clock.now(.monotonic)
        for index in 0..<1_000 {
            // Each arm "takes" 1 ms, so most deadlines have passed by the time they are armed.
            try TempoTimer(.at(.monotonic(start + .microseconds(index * 100))), scheduler: clock, log.record).start()
            clock.advance(by: .milliseconds(1))
        }
        clock.advance(by: .zero)
        #expect(log.count == 1_000)
    }

    @Test func startOfAFiredAtOneShotFiresItAgainAtOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let deadline = TimerDeadline.monotonic(clock.now(.monotonic) + .seconds(1))
        let timer = try TempoTimer(.at(deadline), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        #expect(timer.state == .finished)
        timer.start()
        clock.advance(by: .zero)
        #expect(log.count == 2)
        #expect(log.all.last?.due == deadline.instant)
    }

    @Test func resetOfAThrowOneShotPastItsDeadlineFiresInsteadOfThrowing() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let deadline = TimerDeadline.monotonic(clock.now(.monotonic) + .seconds(1))
        let timer = try TempoTimer(.at(deadline, ifPast: .throw), scheduler: clock, log.record)
        clock.advance(by: .seconds(5))
        #expect(log.count == 0)
        try timer.reset()
        clock.advance(by: .zero)
        #expect(log.count == 1)
        #expect(log.all.last?.due == deadline.instant)
    }
}
