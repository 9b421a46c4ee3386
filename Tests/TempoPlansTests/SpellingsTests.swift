import Foundation
import Tempo
import TempoLocks
import TempoPlans
import TempoTesting
import Testing

/// One test per row of the table in Tempo's "One Shape for Every Type" article: each test writes every spelling of
/// its row (the handler value, the trailing closures, the options in their one order, what `start()` returns, the
/// deadline type), so a rename or a reordered option breaks this file. On virtual time: just before the due instant
/// nothing has run, at it everything has.
@Suite struct SpellingsTests {
    final class Calls: Sendable {
        private let names = TempoMutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        /// The calls so far, sorted (several spellings due at one instant run in no promised order).
        var all: [String] { names.withLock { $0.sorted() } }
    }

    final class Target: Sendable {}

    /// Every second from the virtual clock's wall start (2026-01-01 00:00:00 UTC).
    static func everySecond() throws -> Plan {
        try Plan.every(.seconds(1), anchor: Date(timeIntervalSince1970: 1_767_225_600))
    }

    /// The options of a schedule in their one order: leeway, late policy, delivery, clock.
    static let schedule = TimerSchedule.every(
        .seconds(1), leeway: .zero, latePolicy: .coalesce, delivery: .immediate, clock: .monotonic)

    @Test func tempoTimerTakesAHandlerValueOrATrailingClosureAndStartReturnsTheTimer() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let target = Target()
        let timers: [TempoTimer] = [
            try TempoTimer(Self.schedule, scheduler: clock, handler: .tick { _ in calls.add("tick") }).start(),
            try TempoTimer(Self.schedule, scheduler: clock, handler: .weak(target) { _, _ in calls.add("weak") })
                .start(),
            try TempoTimer(Self.schedule, scheduler: clock) { _ in calls.add("{ tick }") }.start(),
            try TempoTimer(Self.schedule, scheduler: clock) { _, _ in calls.add("{ timer, tick }") }.start(),
        ]
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["tick", "weak", "{ tick }", "{ timer, tick }"].sorted())
        for timer in timers { timer.cancel() }
        withExtendedLifetime(target) {}
    }

    @Test func timerRegistryTakesTheKeyThenTheScheduleUnlabeled() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let registry = TimerRegistry<String>(scheduler: clock)
        try registry.schedule("value", Self.schedule, handler: .tick { _ in calls.add("value") })
        try registry.schedule("tick", Self.schedule) { _ in calls.add("{ tick }") }
        try registry.schedule("timer", Self.schedule) { _, _ in calls.add("{ timer, tick }") }
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["value", "{ tick }", "{ timer, tick }"].sorted())
        registry.cancelAll()
    }

    @Test func sharedTickerSubscribesAHandlerValueOrATrailingClosure() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let ticker = try SharedTicker(Self.schedule, scheduler: clock)
        let tokens = [
            try ticker.subscribe(handler: .tick { _ in calls.add("tick") }),
            try ticker.subscribe { _ in calls.add("{ tick }") },
            try ticker.subscribe { _, _ in calls.add("{ timer, tick }") },
            try ticker.subscribe(everyNth: 2) { _ in calls.add("every 2nd") },
        ]
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["tick", "{ tick }", "{ timer, tick }"].sorted())
        clock.advance(by: .seconds(1))
        #expect(calls.all.filter { $0 == "every 2nd" }.count == 1)
        for token in tokens { token.cancel() }
    }

    @Test func planTimerTakesAHandlerValueOrATrailingClosureAndStartReturnsThePlanTimer() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let plan = try Self.everySecond()
        let timers: [PlanTimer] = [
            try PlanTimer(
                plan, leeway: .zero, latePolicy: .coalesce, delivery: .immediate, scheduler: clock,
                handler: .fire { _ in calls.add("fire") }
            ).start(),
            try PlanTimer(plan, delivery: .immediate, scheduler: clock) { _ in calls.add("{ fire }") }.start(),
            try PlanTimer(plan, delivery: .immediate, scheduler: clock) { _, _ in calls.add("{ timer, fire }") }
                .start(),
        ]
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["fire", "{ fire }", "{ timer, fire }"].sorted())
        for timer in timers { timer.cancel() }
    }

    @Test func planRegistryTakesTheKeyThenThePlanUnlabeled() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let plan = try Self.everySecond()
        let registry = PlanRegistry<String>(scheduler: clock)
        try registry.schedule(
            "value", plan, leeway: .zero, latePolicy: .coalesce, delivery: .immediate,
            handler: .fire { _ in calls.add("value") })
        try registry.schedule("fire", plan, delivery: .immediate) { _ in calls.add("{ fire }") }
        try registry.schedule("timer", plan, delivery: .immediate) { _, _ in calls.add("{ timer, fire }") }
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["value", "{ fire }", "{ timer, fire }"].sorted())
        registry.cancelAll()
    }

    @Test func planFiresTakesTheOptionsInTheOneOrder() async throws {
        let clock = VirtualClock()
        let plan = try Self.everySecond()
        let loop = Task {
            var planned: [Date] = []
            for await fire in try plan.fires(leeway: .zero, latePolicy: .coalesce, scheduler: clock) {
                planned.append(fire.planned)
                break
            }
            return planned
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .milliseconds(999))
        clock.advance(by: .milliseconds(1))
        #expect(try await loop.value == [Date(timeIntervalSince1970: 1_767_225_601)])
    }

    @Test func countdownTakesTheOptionsInTheOneOrderAndStartReturnsTheCountdown() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let countdown = try Countdown(
            duration: .seconds(2), every: .seconds(1), leeway: .zero, delivery: .immediate, clock: .continuous,
            scheduler: clock
        ) { _ in
            calls.add("tick")
        } onFinish: {
            calls.add("finish")
        }.start()
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["tick"])
        clock.advance(by: .seconds(1))
        #expect(calls.all == ["finish", "tick"])
        countdown.cancel()
    }

    @Test func debouncerAndThrottlerTakeTheOptionsInTheOneOrderAndATrailingAction() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let debouncer = try Debouncer<Int>(
            delay: .seconds(1), leeway: .zero, delivery: .immediate, clock: .monotonic, scheduler: clock
        ) { value in calls.add("debounced \(value)") }
        let throttler = try Throttler<Int>(
            every: .seconds(1), edge: .trailing, leeway: .zero, delivery: .immediate, clock: .monotonic,
            scheduler: clock
        ) { value in calls.add("throttled \(value)") }
        debouncer.call(1)
        throttler.call(1)
        throttler.call(2)
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["debounced 1", "throttled 2"])
        debouncer.cancel()
        throttler.cancel()
    }

    @Test func wheelsTakeATimerDeadlineAndReturnOne() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let configuration = TimingWheel.Configuration(
            resolution: .milliseconds(1), delivery: .immediate, clock: .monotonic)
        let wheel = try TimingWheel(configuration: configuration, scheduler: clock)
        let sharded = try ShardedTimingWheel(configuration: configuration, shardCount: 2, scheduler: clock)
        let due = TimerDeadline(clock.now(.monotonic) + .seconds(1), clock: .monotonic)
        let handle = try wheel.schedule(at: due) { calls.add("wheel at") }
        try wheel.schedule(after: .seconds(1)) { calls.add("wheel after") }
        let shardedHandle = try sharded.schedule(at: due) { calls.add("sharded at") }
        #expect(wheel.deadline(of: handle) == due)
        #expect(sharded.deadline(of: shardedHandle) == due)
        clock.advance(by: .milliseconds(999))
        #expect(calls.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(calls.all == ["sharded at", "wheel after", "wheel at"])
    }

    @Test func delayQueueTakesATimerDeadlineAndReturnsOne() async throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(
            configuration: TimingWheel.Configuration(delivery: .immediate), scheduler: clock)
        let due = TimerDeadline(clock.now(.monotonic) + .seconds(1), clock: .monotonic)
        try queue.insert(1, forKey: "at", at: due)
        try queue.insert(2, forKey: "after", after: .seconds(1))
        #expect(queue.deadline(of: "at") == due)
        clock.advance(by: .milliseconds(999))
        #expect(queue.count == 2)
        clock.advance(by: .milliseconds(1))
        var iterator = queue.expired.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.key == "at" && first?.deadline == due)
        #expect(second?.key == "after" && second?.deadline == due)
    }

    @Test func stopwatchStartAnswersWhetherItChangedThePhase() {
        let clock = VirtualClock()
        let stopwatch = Stopwatch(clock: .monotonic, scheduler: clock)
        #expect(stopwatch.start())
        #expect(!stopwatch.start())
        clock.advance(by: .seconds(1))
        #expect(stopwatch.elapsed == .seconds(1))
    }
}
