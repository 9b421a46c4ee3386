import Tempo
import TempoTesting
import Testing

@Suite struct TimerClockTests {
    func makeTimer(_ clock: TimerClock, on virtual: VirtualClock, log: TickLog) throws -> TempoTimer {
        let timer = try TempoTimer(.after(.seconds(10), clock: clock), scheduler: virtual, log.record).start()
        return timer
    }

    @Test func monotonicTimeStopsWhileTheMachineSleeps() throws {
        let virtual = VirtualClock()
        let log = TickLog()
        let timer = try makeTimer(.monotonic, on: virtual, log: log)
        virtual.advance(by: .seconds(2))
        virtual.suspend(for: .seconds(3_600))
        #expect(log.count == 0)
        virtual.advance(by: .milliseconds(7_999))
        #expect(log.count == 0)
        virtual.advance(by: .milliseconds(1))
        #expect(log.count == 1)
        #expect(timer.state == .finished)
    }

    @Test func continuousTimeCountsThroughSleepAndFiresOnWake() throws {
        let virtual = VirtualClock()
        let log = TickLog()
        _ = try makeTimer(.continuous, on: virtual, log: log)
        virtual.advance(by: .seconds(2))
        virtual.suspend(for: .milliseconds(7_999))
        #expect(log.count == 0)
        virtual.suspend(for: .seconds(3_600))
        #expect(log.count == 1)
        #expect(log.all.first?.lateness == .seconds(3_600) - .milliseconds(1))
    }

    @Test func wallTimerFiresAtItsDateAfterTheClockIsSetForward() throws {
        let virtual = VirtualClock()
        let log = TickLog()
        let date = VirtualClock.defaultWallStart + .seconds(32_400)
        try TempoTimer(.at(TimerDeadline(date, clock: .wall)), scheduler: virtual, log.record).start()
        virtual.adjustWallClock(by: .seconds(32_400) - .seconds(1))
        #expect(log.count == 0)
        virtual.adjustWallClock(by: .seconds(1))
        #expect(log.count == 1)
        #expect(log.all.first?.due == date)
    }

    @Test func wallTimerWaitsForItsDateAfterTheClockIsSetBack() throws {
        let virtual = VirtualClock()
        let log = TickLog()
        let date = VirtualClock.defaultWallStart + .seconds(10)
        try TempoTimer(.at(TimerDeadline(date, clock: .wall)), scheduler: virtual, log.record).start()
        virtual.adjustWallClock(by: .seconds(-60))
        virtual.advance(by: .seconds(69))
        #expect(log.count == 0)
        virtual.advance(by: .seconds(1))
        #expect(log.count == 1)
    }

    @Test func monotonicAndContinuousTimersIgnoreWallClockJumps() throws {
        let virtual = VirtualClock()
        let log = TickLog()
        _ = try makeTimer(.monotonic, on: virtual, log: log)
        _ = try makeTimer(.continuous, on: virtual, log: log)
        virtual.adjustWallClock(by: .seconds(86_400))
        #expect(log.count == 0)
        virtual.advance(by: .seconds(10))
        #expect(log.count == 2)
    }
}
