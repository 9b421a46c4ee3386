import Tempo
import TempoTesting
import Testing

/// One rule for delays (issue #41): a delay (the time until a tick: `.after(_:)`, `first: .after(_:)`,
/// `reschedule(after:)`, and the delays of the timing wheels and `DelayQueue`) is between zero and
/// `TempoError.maximumDuration`, and zero means "at once"; an interval (the time between ticks) is at least 1 ns.
@Suite struct ZeroDelayTests {
    /// `.after(.zero)` was refused while `reschedule(after: .zero)` was accepted.
    @Test func aZeroDelayOneShotTicksAtOnceOnStart() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.zero), scheduler: clock, log.record)
        #expect(timer.schedule.delay == .zero)
        #expect(timer.schedule.isOneShot)
        timer.start()
        clock.advance(by: .zero)
        #expect(log.indices == [1])
        #expect(log.all.first?.due == clock.now(.monotonic))
        #expect(timer.state == .finished)
        // Started again, it ticks at once again; a reset does the same.
        timer.start()
        clock.advance(by: .zero)
        #expect(log.count == 2)
        try timer.reset(interval: nil)
        clock.advance(by: .zero)
        #expect(log.count == 3)
    }

    @Test func aZeroDelayRescheduleTicksAtOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(10)), scheduler: clock, log.record)
        timer.start()
        try timer.reschedule(after: .zero)
        clock.advance(by: .zero)
        #expect(log.indices == [1])
        #expect(timer.state == .finished)
    }

    @Test func aDelayBelowOneNanosecondIsAcceptedByBoth() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(Duration(attoseconds: 1)), scheduler: clock, log.record)
        #expect(timer.schedule.delay == Duration(attoseconds: 1))
        timer.start()
        clock.advance(by: .nanoseconds(1))
        #expect(log.count == 1)
        try timer.reschedule(after: Duration(attoseconds: 1))
        clock.advance(by: .nanoseconds(1))
        #expect(log.count == 2)
    }

    @Test(arguments: [
        Duration.nanoseconds(-1), Duration(attoseconds: -1), .seconds(Int64.min),
        TempoError.maximumDuration + Duration(attoseconds: 1), .seconds(Int64.max),
    ])
    func aNegativeOrOversizedDelayIsRefusedByBothNamingIt(delay: Duration) throws {
        let clock = VirtualClock()
        let made = #expect(throws: TempoError.self) { try TempoTimer(.after(delay), scheduler: clock) }
        #expect(made?.code == .invalidInterval)
        #expect(made?.value == delay.exactDescription)
        #expect(made?.message.hasPrefix("delay must be between 0 and") == true)
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock)
        let moved = #expect(throws: TempoError.self) { try timer.reschedule(after: delay) }
        #expect(moved?.code == .invalidInterval)
        #expect(moved?.value == delay.exactDescription)
        let registry = TimerRegistry<String>(scheduler: clock)
        let scheduled = #expect(throws: TempoError.self) { try registry.schedule("k", .after(delay)) { _ in } }
        #expect(scheduled?.code == .invalidInterval)
    }

    @Test func aZeroDelayRegistryEntryTicksAtOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let registry = TimerRegistry<String>(scheduler: clock)
        try registry.schedule("now", .after(.zero)) { log.record($0) }
        clock.advance(by: .zero)
        #expect(log.count == 1)
    }

    /// The wheels refused a zero delay too, although a deadline already past fires in their next batch.
    @Test func aZeroDelayOnAWheelFiresInTheNextBatch() throws {
        let clock = VirtualClock()
        let log = ValueLog()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try wheel.schedule(after: .zero, value: 1)
        let moved = try wheel.schedule(after: .seconds(10), value: 2)
        #expect(try wheel.reschedule(moved, after: .zero))
        clock.advance(by: .milliseconds(1))
        #expect(log.values == [1, 2])
        let sharded = try ShardedTimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try sharded.schedule(after: .zero, value: 3)
        clock.advance(by: .milliseconds(1))
        #expect(log.values == [1, 2, 3])
        #expect(throws: TempoError.self) { try sharded.schedule(after: .nanoseconds(-1), value: 4) }
    }

    @Test func aZeroDelayOnADelayQueueIsDueAtOnce() throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(configuration: .immediate, scheduler: clock)
        try queue.insert(1, forKey: "a", after: .zero)
        try queue.insert(2, forKey: "b", after: .seconds(10))
        #expect(try queue.reschedule("b", after: .zero))
        clock.advance(by: .milliseconds(1))
        let count = queue.count
        #expect(count == 0)
        let error = #expect(throws: TempoError.self) { try queue.insert(3, forKey: "c", after: .nanoseconds(-1)) }
        #expect(error?.code == .invalidInterval)
    }
}
