import Tempo
import TempoTesting
import Testing

/// Late-tick policies with a slow consumer: after tick 1 the loop body takes 3.5 intervals of virtual time.
@Suite struct AsyncTickPolicyTests {
    private struct Observed: Equatable, CustomStringConvertible {
        var index: Int
        var dueOffset: Duration
        var lateness: Duration
        var missed: Int
        var description: String { "#\(index) due \(dueOffset) late \(lateness) missed \(missed)" }
    }

    /// Runs 6 s of a 1 s sequence whose body sleeps 3.5 s on the virtual clock after tick 1.
    private func slowConsumer(_ policy: LateTickPolicy) async throws -> [Observed] {
        let clock = VirtualClock()
        let start = clock.now
        let ticks = try AsyncTickSequence(every: .seconds(1), latePolicy: policy, clock: clock)
        let log = AsyncTickLog<TimerInstant>()
        let consumer = Task {
            for await tick in ticks {
                log.record(tick)
                if tick.index == 1 { try? await clock.sleep(for: .milliseconds(3500)) }
            }
        }
        await drive(clock) { (log.all.last?.index ?? 0) >= 6 }
        consumer.cancel()
        await consumer.value
        #expect(clock.pendingCount == 0)
        return log.all.map {
            Observed(index: $0.index, dueOffset: $0.due - start, lateness: $0.lateness, missed: $0.missed)
        }
    }

    @Test func coalesceHandsASlowConsumerOnlyTheLatestDueTick() async throws {
        let observed = try await slowConsumer(.coalesce)
        #expect(
            observed == [
                Observed(index: 1, dueOffset: .seconds(1), lateness: .zero, missed: 0),
                Observed(index: 4, dueOffset: .seconds(4), lateness: .milliseconds(500), missed: 2),
                Observed(index: 5, dueOffset: .seconds(5), lateness: .zero, missed: 0),
                Observed(index: 6, dueOffset: .seconds(6), lateness: .zero, missed: 0),
            ]
        )
    }

    @Test func burstHandsASlowConsumerEveryDueTickBackToBack() async throws {
        let observed = try await slowConsumer(.burst)
        #expect(
            observed == [
                Observed(index: 1, dueOffset: .seconds(1), lateness: .zero, missed: 0),
                Observed(index: 2, dueOffset: .seconds(2), lateness: .milliseconds(2500), missed: 0),
                Observed(index: 3, dueOffset: .seconds(3), lateness: .milliseconds(1500), missed: 0),
                Observed(index: 4, dueOffset: .seconds(4), lateness: .milliseconds(500), missed: 0),
                Observed(index: 5, dueOffset: .seconds(5), lateness: .zero, missed: 0),
                Observed(index: 6, dueOffset: .seconds(6), lateness: .zero, missed: 0),
            ]
        )
    }

    @Test func skipDropsTheDueTicksAndWaitsForTheNextSlot() async throws {
        let observed = try await slowConsumer(.skip)
        #expect(
            observed == [
                Observed(index: 1, dueOffset: .seconds(1), lateness: .zero, missed: 0),
                Observed(index: 5, dueOffset: .seconds(5), lateness: .zero, missed: 3),
                Observed(index: 6, dueOffset: .seconds(6), lateness: .zero, missed: 0),
            ]
        )
    }

    /// The same gap for the core timer and the sequence: the continuous clock jumps 3.5 s (a machine sleep)
    /// while both wait for tick 2. Both must hand over the same ticks under every policy.
    @Test(arguments: LateTickPolicy.allCases)
    func sequenceMatchesTheCoreTimerAcrossAGap(policy: LateTickPolicy) async throws {
        let timerClock = VirtualClock()
        let timerLog = TickLog()
        let timer = try TempoTimer(
            .every(.seconds(1), latePolicy: policy, clock: .continuous), scheduler: timerClock, timerLog.record)
        timer.start()
        timerClock.advance(by: .seconds(1))
        timerClock.suspend(for: .milliseconds(3500))
        timerClock.advance(by: .milliseconds(1500))
        timer.cancel()

        let clock = VirtualClock()
        let ticks = try AsyncTickSequence(every: .seconds(1), latePolicy: policy, clock: clock.clock(.continuous))
        let log = AsyncTickLog<TimerInstant>()
        let consumer = Task {
            for await tick in ticks { log.record(tick) }
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .seconds(1))
        try #require(await eventually { log.count == 1 })
        try #require(await clock.waitForPending())
        clock.suspend(for: .milliseconds(3500))
        try #require(await clock.waitForPending())
        await drive(clock) { clock.now(.continuous) >= timerClock.now(.continuous) }
        try #require(await eventually { clock.pendingCount == 1 })
        consumer.cancel()
        await consumer.value

        let core = timerLog.all.map { [$0.index, $0.missed] }
        let sequence = log.all.map { [$0.index, $0.missed] }
        #expect(sequence == core, "policy \(policy)")
        #expect(log.all.map(\.lateness) == timerLog.all.map(\.lateness))
    }
}
