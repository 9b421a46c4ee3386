import Tempo
import TempoLocks
import Testing

/// A clock whose time the test sets without waking its sleepers, and whose sleepers wake only when the test says:
/// it makes a scheduler's wake-up late on purpose.
final class LaggingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = TempoMutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps until ``wakeSleepers()``, whatever the deadline (the scheduler checks `now` itself).
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { continuation in
            state.withLock { $0.sleepers.append(continuation) }
        }
    }

    /// Moves time without waking anyone.
    func set(_ offset: Duration) {
        state.withLock { $0.now = Instant(offset: offset) }
    }

    /// Wakes every sleeper.
    func wakeSleepers() {
        let sleepers = state.withLock { state in
            defer { state.sleepers = [] }
            return state.sleepers
        }
        for sleeper in sleepers { sleeper.resume() }
    }
}

/// `ClockScheduler` hands a late wake-up to the timer, whose late-tick policy decides, and never runs early.
@Suite struct ClockSchedulerLateTickTests {
    func lateTicks(_ policy: LateTickPolicy) async throws -> [String] {
        let clock = LaggingClock()
        let scheduler = ClockScheduler(clock: clock, wallClockStart: .zero)
        let log = EventLog()
        let timer = try TempoTimer(
            .every(.seconds(1), repeats: .times(5), latePolicy: policy, delivery: .immediate), scheduler: scheduler
        ) { tick in
            log.record("\(tick.index) missed \(tick.missed) late \(tick.lateness)")
        }.start()
        try #require(await eventually { clock.sleeperCount == 1 })
        clock.set(.milliseconds(999))
        clock.wakeSleepers()  // woke early: nothing may run
        try #require(await eventually { clock.sleeperCount == 1 })
        #expect(log.all.isEmpty)
        clock.set(.milliseconds(3500))
        clock.wakeSleepers()
        try #require(await eventually { clock.sleeperCount == 1 && !log.all.isEmpty })
        timer.cancel()
        clock.wakeSleepers()  // the scheduler's task ends: nothing is pending
        try #require(await eventually { scheduler.pendingCount == 0 && clock.sleeperCount == 0 })
        return log.all
    }

    @Test func aLateWakeUpIsCoalescedIntoOneTick() async throws {
        #expect(try await lateTicks(.coalesce) == ["3 missed 2 late 0.5 seconds"])
    }

    @Test func aLateWakeUpBurstsEveryMissedTick() async throws {
        let ticks = try await lateTicks(.burst)
        #expect(ticks.map { $0.prefix(11) } == ["1 missed 0 ", "2 missed 0 ", "3 missed 0 "])
    }
}
