import Tempo
import TempoLocks
import TempoTesting
import Testing

/// `schedule(after:)` without a clock read (the default on `SystemScheduler`), checked on virtual time: the timer
/// waits until the driver's next clock reading, which comes after the call, so it is never early and at most one
/// tick later than `schedule(at: now + delay)`.
@Suite struct TimingWheelRelativeDeadlineTests {
    /// A wheel on `clock` whose relative timers wait for the driver's clock reading, as on `SystemScheduler`.
    static func wheel(_ clock: VirtualClock, _ log: ValueLog) throws -> TimingWheel {
        try TimingWheel(configuration: .immediate, scheduler: clock, handler: log, settlesDelaysLater: true)
    }

    @Test func aDelayArmedRightAfterADriverRunFiresAtMostOneTickLateAndNeverEarly() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try Self.wheel(clock, log)
        // Make the driver run at 10 ms, then arm 17 delays at that very instant: the 17th waits for the driver.
        try wheel.schedule(after: .milliseconds(10), value: 99)
        clock.advance(by: .milliseconds(10))
        #expect(log.values == [99])
        for value in UInt64(0)...16 { try wheel.schedule(after: .milliseconds(5), value: value) }
        wheel._checkInvariants()
        clock.advance(by: .milliseconds(5) - .nanoseconds(1))
        #expect(log.values == [99])
        clock.advance(by: .nanoseconds(1))
        // The first 16 read the clock: due at exactly 15 ms.
        #expect(log.values == [99] + Array(0..<16))
        clock.advance(by: .milliseconds(1))
        // The 17th waited for the driver's reading at 11 ms: due at 16 ms, one tick later, never earlier.
        #expect(log.values == [99] + Array(0...16))
        #expect(log.instants.last == TimerInstant(offset: .milliseconds(16)))
    }

    @Test func aDelayArmedOnAStaleWheelIsMeasuredFromTheCallNotFromTheLastTick() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try Self.wheel(clock, log)
        // 16 delays read the clock; the driver is armed an hour out, so it does not run while time moves on.
        for value in UInt64(0)..<16 { try wheel.schedule(after: .seconds(3_600), value: 1_000 + value) }
        clock.advance(to: TimerInstant(offset: .microseconds(50_300)))
        // The wheel last ticked at 0; these wait for the driver, and must not fire before 60.3 ms.
        for value in UInt64(0)..<Self.busy { try wheel.schedule(after: .milliseconds(10), value: value) }
        wheel._checkInvariants()
        clock.advance(to: TimerInstant(offset: .microseconds(60_300) - .nanoseconds(1)))
        #expect(log.values == [])
        clock.advance(to: TimerInstant(offset: .milliseconds(61)))
        #expect(log.values == Array(0..<Self.busy))
        #expect(log.instants.allSatisfy { $0 == TimerInstant(offset: .milliseconds(61)) })
        wheel._checkInvariants()
    }

    /// Enough delays in one driver interval that the later ones wait for the driver.
    static let busy = UInt64(40)

    @Test func randomArmsNeverFireEarlyAndAtMostTwoTicksAfterTheirDelay() throws {
        let seed = SeededGenerator.seed()
        print("TimingWheelRelativeDeadlineTests seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try Self.wheel(clock, log)
        var armed: [(earliest: TimerInstant, latest: TimerInstant)] = []
        var cancelled = Set<UInt64>()
        for _ in 0..<300 {
            for _ in 0..<Int.random(in: 0...30, using: &random) {
                let delay = Duration.microseconds(Int64.random(in: 1...20_000, using: &random))
                let now = clock.now(.monotonic)
                let handle = try wheel.schedule(after: delay, value: UInt64(armed.count))
                // Exact would be the first 1 ms boundary at or after now + delay; waiting adds at most one tick.
                armed.append((now + delay, now + delay + .milliseconds(2)))
                if Int.random(in: 0..<10, using: &random) == 0, wheel.cancel(handle) {
                    cancelled.insert(UInt64(armed.count - 1))
                }
            }
            clock.advance(by: .microseconds(Int64.random(in: 0...1_500, using: &random)))
            wheel._checkInvariants()
        }
        clock.advance(by: .seconds(1))
        let values = log.values
        let instants = log.instants
        #expect(Set(values).count == values.count, "a timer fired twice (seed \(seed))")
        #expect(values.count + cancelled.count == armed.count, "seed \(seed)")
        for (value, instant) in zip(values, instants) {
            let bounds = armed[Int(value)]
            #expect(!cancelled.contains(value), "timer \(value) fired after its cancel (seed \(seed))")
            #expect(instant >= bounds.earliest, "timer \(value) fired early at \(instant) (seed \(seed))")
            #expect(instant <= bounds.latest, "timer \(value) fired late at \(instant) (seed \(seed))")
        }
    }

    @Test func askingForTheDeadlineSettlesAWaitingTimerFromACurrentReading() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try Self.wheel(clock, log)
        var handles: [TimingWheel.Handle] = []
        for value in UInt64(0)..<Self.busy { handles.append(try wheel.schedule(after: .milliseconds(3), value: value)) }
        let waiting = handles.last!
        #expect(wheel.deadline(of: waiting)?.instant == TimerInstant(offset: .milliseconds(3)))
        wheel._checkInvariants()
        // Rescheduling a waiting timer gives it exactly the new deadline.
        let second = handles[handles.count - 2]
        #expect(try wheel.reschedule(second, at: TimerInstant(offset: .milliseconds(7))))
        #expect(wheel.deadline(of: second)?.instant == TimerInstant(offset: .milliseconds(7)))
        #expect(wheel.cancel(handles[handles.count - 3]))
        clock.advance(by: .milliseconds(7) - .nanoseconds(1))
        #expect(log.count == Int(Self.busy) - 2)
        #expect(!log.values.contains(Self.busy - 3))
        clock.advance(by: .nanoseconds(1))
        #expect(log.values.last == Self.busy - 2)
        #expect(wheel.count == 0)
    }

    @Test func aValueTimerOnAWheelWithoutAHandlerThrowsInsteadOfTrapping() throws {
        let wheel = try TimingWheel(configuration: .immediate, scheduler: VirtualClock())
        for relative in [true, false] {
            do {
                if relative {
                    try wheel.schedule(after: .seconds(1), value: 1)
                } else {
                    try wheel.schedule(at: .zero, value: 1)
                }
                Issue.record("a value timer was armed without a handler")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("handler"))
            }
        }
        #expect(wheel.count == 0)
    }
}
