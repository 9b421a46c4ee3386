import Dispatch
import Tempo
import TempoTesting
import Testing

/// The traps of issue #30's "What was measured", each on the surface that replaced the one that hid it.
@Suite struct SurfaceTrapTests {
    @Test func aDateDeadlineArmsTheWallClockWithoutAClockArgument() throws {
        let clock = VirtualClock()
        let log = TickLog()
        // A `Date` 10 s from the virtual wall clock's now, through its seconds since 1970.
        let date = clock.now(.wall).timeIntervalSince1970 + 10
        let timer = try TempoTimer(.at(TimerDeadline(timeIntervalSince1970: date)), scheduler: clock, log.record)
            .start()
        #expect(timer.clock == .wall)
        clock.advance(by: .milliseconds(9_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 1)
        #expect(timer.state == .finished)
    }

    @Test func aDispatchTimeDeadlineArmsTheMonotonicClockAndAWallTimeTheWallClock() throws {
        #expect(try TimerSchedule.at(TimerDeadline(DispatchTime.now() + 5)).clock == .monotonic)
        #expect(try TimerSchedule.at(TimerDeadline(DispatchWallTime.now() + 5)).clock == .wall)
        #expect(TimerSchedule.at(TimerDeadline(ContinuousClock.now + .seconds(5))).clock == .continuous)
        #expect(TimerSchedule.at(TimerDeadline(SuspendingClock.now + .seconds(5))).clock == .monotonic)
    }

    @Test func aFirstTickOnAnotherClockThanTheScheduleIsATypedErrorAtTheCall() throws {
        let clock = VirtualClock()
        let wall = TimerDeadline.wall(clock.now(.wall) + .seconds(5))
        let error = #expect(throws: TempoError.self) {
            _ = try TempoTimer(.every(.seconds(1), first: .at(wall), clock: .monotonic), scheduler: clock) { _ in }
        }
        #expect(error?.code == .clockMismatch)
        #expect(error?.message.contains("wall") == true)
        #expect(error?.message.contains("monotonic") == true)
        // Without a clock argument the deadline's clock is the timer's.
        let timer = try TempoTimer(.every(.seconds(1), first: .at(wall)), scheduler: clock) { _ in }
        #expect(timer.clock == .wall)
    }

    @Test func reschedulingToADeadlineOfAnotherClockThrowsAndLeavesTheTimerAlone() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(5)), scheduler: clock, log.record).start()
        let error = #expect(throws: TempoError.self) {
            try timer.reschedule(at: .wall(clock.now(.wall) + .seconds(1)))
        }
        #expect(error?.code == .clockMismatch)
        clock.advance(by: .seconds(5))
        #expect(log.count == 1)
    }

    @Test func aOneShotAtADeadlineHasNoInterval() throws {
        let clock = VirtualClock()
        let deadline = TimerDeadline.monotonic(clock.now(.monotonic) + .seconds(5))
        let timer = try TempoTimer(.at(deadline), scheduler: clock) { _ in }
        #expect(timer.schedule.interval == nil)
        #expect(timer.schedule.deadline == deadline)
        #expect(timer.schedule.isOneShot)
        let after = try TempoTimer(.after(.seconds(3)), scheduler: clock) { _ in }
        #expect(after.schedule.interval == nil)
        #expect(after.schedule.delay == .seconds(3))
    }

    @Test func resetOfAFiredOneShotAtADeadlineReArmsItAtThatDeadlineNotOneSecondLater() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let start = clock.now(.monotonic)
        let timer = try TempoTimer(.at(.monotonic(start + .seconds(5))), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(6))
        #expect(log.count == 1)
        // The deadline has passed: reset re-arms it there, a late tick that fires at once (the old dummy 1 s
        // interval fired it at 7 s).
        try timer.reset()
        clock.advance(by: .zero)
        #expect(log.count == 2)
        #expect(log.all.last?.due == start + .seconds(5))
    }

    @Test func resetOfAOneShotAfterADelayStartsTheDelayOver() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(2)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(1))
        try timer.reset()
        clock.advance(by: .milliseconds(1_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 1)
    }

    @Test func resetOfAOneShotWithAnIntervalThrowsBecauseItHasNone() throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.after(.seconds(2)), scheduler: clock) { _ in }.start()
        let error = #expect(throws: TempoError.self) { try timer.reset(interval: .seconds(5)) }
        #expect(error?.code == .invalidInterval)
        #expect(timer.schedule.delay == .seconds(2))
    }

    @Test func restartResumesAPausedTimerWhereResetLeavesItPaused() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record).start()
        timer.pause()
        try timer.reset(interval: .seconds(2))
        #expect(timer.state == .paused)
        try timer.restart(interval: .seconds(3))
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(2_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
    }

    @Test func startOnAPendingOneShotDoesNothingAndCreatingNeverStarts() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record)
        #expect(timer.state == .idle)
        timer.start().start()
        clock.advance(by: .seconds(5))
        #expect(log.count == 1)
        // Documented: a fired one-shot is finished, and start() runs it again.
        #expect(timer.state == .finished)
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(log.count == 2)
    }
}
