import Tempo
import TempoTesting
import Testing

@Suite struct ReschedulingTests {
    @Test func rescheduleAtMovesThePendingTickOfARunningOneShot() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let start = clock.now(.monotonic)
        let timer = try TempoTimer(.after(.seconds(10)), scheduler: clock, log.record).start()
        try timer.reschedule(at: .monotonic(start + .seconds(3)))
        clock.advance(by: .milliseconds(2_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.map(\.due) == [start + .seconds(3)])
        clock.advance(by: .seconds(10))
        #expect(log.count == 1)
        #expect(clock.pendingCount == 0)
    }

    @Test func rescheduleAfterRearmsAFiredOneShotWithoutANewTimer() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(1))
        #expect(timer.state == .finished)
        try timer.reschedule(after: .seconds(4))
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(3_999))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 2)
    }

    @Test func aHandlerCanRescheduleItsOwnOneShot() throws {
        let clock = VirtualClock()
        let log = TickLog()
        try TempoTimer(.after(.seconds(1)), scheduler: clock) { timer, tick in
            log.record(tick)
            if log.count < 3 { try? timer.reschedule(after: .seconds(2)) }
        }.start()
        clock.advance(by: .seconds(20))
        #expect(log.count == 3)
        #expect(clock.pendingCount == 0)
    }

    @Test func rescheduleAtMovesTheNextTickOfARepeatingTimerAndKeepsTheSpacing() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let start = clock.now(.monotonic)
        let timer = try TempoTimer(.every(.seconds(10), repeats: .times(3)), scheduler: clock, log.record).start()
        try timer.reschedule(at: .monotonic(start + .seconds(1)))
        clock.advance(by: .seconds(21))
        #expect(log.all.map(\.due) == [start + .seconds(1), start + .seconds(11), start + .seconds(21)])
        #expect(timer.state == .finished)
    }

    @Test func reschedulingAPausedTimerKeepsItPausedWithTheNewTimeLeft() throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.after(.seconds(10)), scheduler: clock) { _ in }.start()
        timer.pause()
        try timer.reschedule(after: .seconds(4))
        #expect(timer.state == .paused)
        #expect(timer.timeUntilNextTick == .seconds(4))
    }

    @Test func aNegativeRescheduleDelayThrowsNamingIt() throws {
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: VirtualClock()) { _ in }
        let error = #expect(throws: TempoError.self) { try timer.reschedule(after: .seconds(-1)) }
        #expect(error?.code == .invalidInterval)
        #expect(error?.value == "-1 seconds")
    }
}
