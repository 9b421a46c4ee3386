import Dispatch
import Synchronization
import Tempo
import TempoTesting
import Testing

@Suite struct TimingWheelTests {
    @Test func valueTimerFiresAtItsDeadlineAndNotBefore() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try wheel.schedule(after: .milliseconds(10), value: 7)
        clock.advance(by: .milliseconds(10) - .nanoseconds(1))
        #expect(log.values == [])
        #expect(wheel.count == 1)
        clock.advance(by: .nanoseconds(1))
        #expect(log.values == [7])
        #expect(log.instants == [TimerInstant(offset: .milliseconds(10))])
        #expect(wheel.count == 0)
        wheel._checkInvariants()
    }

    @Test func deadlineBetweenTicksFiresAtTheNextTickBoundary() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try wheel.schedule(at: TimerInstant(offset: .microseconds(10_300)), value: 1)
        clock.advance(to: TimerInstant(offset: .microseconds(10_999)))
        #expect(log.values == [])
        clock.advance(to: TimerInstant(offset: .milliseconds(11)))
        #expect(log.values == [1])
    }

    @Test func farOutTimersFireWithinOneTickOfTheirDeadlineAndNeverEarly() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let deadlines: [Duration] = [
            .milliseconds(63), .milliseconds(64), .milliseconds(65), .seconds(1) + .microseconds(500),
            .seconds(3_600) + .nanoseconds(1), .seconds(4_095), .seconds(86_400 * 3) + .microseconds(1),
            .seconds(86_400 * 800) + .milliseconds(3),  // beyond 2^36 ticks: the overflow list
        ]
        for (value, deadline) in deadlines.enumerated() {
            try wheel.schedule(at: TimerInstant(offset: deadline), value: UInt64(value))
        }
        wheel._checkInvariants()
        clock.runUntilIdle()
        #expect(log.values == Array(0..<UInt64(deadlines.count)))
        for (deadline, firedAt) in zip(deadlines, log.instants) {
            #expect(firedAt.offset >= deadline)
            #expect(firedAt.offset < deadline + .milliseconds(1))
        }
        wheel._checkInvariants()
    }

    @Test func overflowTimersOnANanosecondTickFireExactly() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let configuration = TimingWheel.Configuration(resolution: .nanoseconds(1), delivery: .immediate)
        let wheel = try TimingWheel(configuration: configuration, scheduler: clock, handler: log)
        // 2^36 ns is about 68.7 s: these sit beyond the levels' reach when armed.
        try wheel.schedule(at: TimerInstant(offset: .seconds(200) + .nanoseconds(3)), value: 2)
        try wheel.schedule(at: TimerInstant(offset: .seconds(70)), value: 1)
        clock.advance(to: TimerInstant(offset: .seconds(70) - .nanoseconds(1)))
        #expect(log.values == [])
        wheel._checkInvariants()
        clock.advance(to: TimerInstant(offset: .seconds(70)))
        #expect(log.values == [1])
        clock.advance(to: TimerInstant(offset: .seconds(200) + .nanoseconds(2)))
        #expect(log.values == [1])
        clock.advance(by: .nanoseconds(1))
        #expect(log.values == [1, 2])
        #expect(log.instants.last == TimerInstant(offset: .seconds(200) + .nanoseconds(3)))
    }

    @Test func cancelledTimerDoesNotFireAndStaleHandlesAreHarmless() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let first = try wheel.schedule(after: .milliseconds(5), value: 1)
        #expect(wheel.cancel(first))
        #expect(!wheel.cancel(first))
        // The freed entry is reused; the old handle must not touch the new timer.
        let second = try wheel.schedule(after: .milliseconds(5), value: 2)
        #expect(!wheel.cancel(first))
        #expect(try !wheel.reschedule(first, after: .seconds(1)))
        #expect(wheel.deadline(of: first) == nil)
        #expect(wheel.isArmed(second))
        clock.advance(by: .milliseconds(5))
        #expect(log.values == [2])
        #expect(!wheel.cancel(second))
        #expect(!wheel.isArmed(second))
        wheel._checkInvariants()
    }

    @Test func pushingADeadlineLaterKeepsTheTimerUntilTheNewDeadline() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let handle = try wheel.schedule(after: .milliseconds(10), value: 9)
        // An idle timeout refreshed by reads at 4 ms and 8 ms: due 10 ms after the last read.
        clock.advance(by: .milliseconds(4))
        #expect(try wheel.reschedule(handle, after: .milliseconds(10)))
        clock.advance(by: .milliseconds(4))
        #expect(try wheel.reschedule(handle, after: .milliseconds(10)))
        #expect(wheel.deadline(of: handle)?.instant == TimerInstant(offset: .milliseconds(18)))
        clock.advance(to: TimerInstant(offset: .milliseconds(18) - .nanoseconds(1)))
        #expect(log.values == [])
        wheel._checkInvariants()
        clock.advance(by: .nanoseconds(1))
        #expect(log.values == [9])
        #expect(log.instants == [TimerInstant(offset: .milliseconds(18))])
    }

    @Test func bringingADeadlineEarlierFiresAtTheEarlierDeadline() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let handle = try wheel.schedule(after: .seconds(3_600), value: 3)
        #expect(try wheel.reschedule(handle, after: .milliseconds(5)))
        clock.advance(by: .milliseconds(4))
        #expect(log.values == [])
        clock.advance(by: .milliseconds(1))
        #expect(log.values == [3])
        #expect(log.instants == [TimerInstant(offset: .milliseconds(5))])
    }

    @Test func timersDueTogetherRunAsOneBatchInDeadlineThenArmOrder() throws {
        let scheduler = CountingScheduler()
        let log = ValueLog()
        let queue = DispatchQueue(label: "wheel-test")
        let configuration = TimingWheel.Configuration(delivery: .queue(queue))
        let wheel = try TimingWheel(configuration: configuration, scheduler: scheduler, handler: log)
        let base = TimerInstant(offset: .milliseconds(20))
        // Same tick, deadlines within it out of arm order: 20 ms - 0.5 µs sorts before 20 ms.
        for value in UInt64(0)..<100 { try wheel.schedule(at: base, value: value) }
        try wheel.schedule(at: base - .nanoseconds(500), value: 100)
        let executes = scheduler.executes
        scheduler.clock.advance(by: .milliseconds(20))
        #expect(log.values == [100] + Array(0..<100))
        #expect(scheduler.executes == executes + 1)
    }

    @Test func closureAndValueTimersShareOneWheelInDeadlineOrder() throws {
        let clock = VirtualClock()
        let log = ValueLog()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try wheel.schedule(after: .milliseconds(3), value: 3)
        try wheel.schedule(after: .milliseconds(1)) { log.timerFired(value: 1) }
        try wheel.schedule(after: .milliseconds(2), value: 2)
        let cancelled = try wheel.schedule(after: .milliseconds(2)) { log.timerFired(value: 99) }
        #expect(wheel.cancel(cancelled))
        clock.advance(by: .milliseconds(10))
        #expect(log.values == [1, 2, 3])
    }

    @Test func aCancelledClosureIsReleased() throws {
        final class Token: Sendable {}
        let clock = VirtualClock()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock)
        weak var weakToken: Token?
        let handle = try {
            let token = Token()
            weakToken = token
            return try wheel.schedule(after: .seconds(1)) { withExtendedLifetime(token) {} }
        }()
        #expect(weakToken != nil)
        wheel.cancel(handle)
        #expect(weakToken == nil)
    }

    @Test func pastDeadlinesFireInTheNextBatch() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        clock.advance(by: .seconds(5))
        try wheel.schedule(at: TimerInstant(offset: .seconds(1)), value: 1)
        try wheel.schedule(at: .zero, value: 0)
        clock.advance(by: .zero)
        #expect(log.values == [0, 1])
        #expect(log.instants == [TimerInstant(offset: .seconds(5)), TimerInstant(offset: .seconds(5))])
    }

    @Test func callbacksMayArmAndCancelOnTheirOwnWheel() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let victim = try wheel.schedule(after: .milliseconds(2), value: 99)
        try wheel.schedule(after: .milliseconds(1)) {
            wheel.cancel(victim)
            _ = try? wheel.schedule(after: .milliseconds(1), value: 2)
            log.timerFired(value: 1)
        }
        clock.advance(by: .milliseconds(5))
        #expect(log.values == [1, 2])
        wheel._checkInvariants()
    }

    @Test func releasingTheWheelCancelsItsDriverAction() throws {
        let clock = VirtualClock()
        var wheel: TimingWheel? = try TimingWheel(configuration: .immediate, scheduler: clock)
        try wheel?.schedule(after: .seconds(1)) {}
        #expect(clock.pendingCount == 1)
        wheel = nil
        #expect(clock.pendingCount == 0)
    }

    @Test func badInputThrowsNamingTheValue() throws {
        let clock = VirtualClock()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: ValueLog())
        #expect(throws: TempoError.self) { try wheel.schedule(after: .nanoseconds(-1), value: 1) }
        #expect(throws: TempoError.self) { try wheel.schedule(after: .seconds(-1)) {} }
        let far = TimerInstant(offset: .seconds(Int64.max / 1_000_000_000) + .seconds(1))
        do {
            try wheel.schedule(at: far, value: 1)
            Issue.record("a deadline beyond Int64 nanoseconds was accepted")
        } catch {
            #expect(error.code == .invalidInstant)
            #expect(error.message.contains("\(far)"))
        }
        for tick in [Duration.zero, .nanoseconds(-1), .nanoseconds(1) / 2, .nanoseconds(3) / 2] {
            do {
                _ = try TimingWheel(configuration: .init(resolution: tick), scheduler: clock)
                Issue.record("tick \(tick) was accepted")
            } catch {
                #expect(error.code == .invalidInterval)
                #expect(error.value == tick.exactDescription)
            }
        }
        #expect(throws: TempoError.self) {
            try TimingWheel(configuration: .init(initialCapacity: -1), scheduler: clock)
        }
        #expect(wheel.count == 0)
    }
}
