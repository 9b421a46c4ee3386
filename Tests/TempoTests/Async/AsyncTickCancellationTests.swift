import Tempo
import TempoTesting
import Testing

@Suite struct AsyncTickCancellationTests {
    @Test func cancellingTheConsumerEndsTheSequenceAtOnceAndDisarmsItsDeadline() async throws {
        let clock = VirtualClock()
        let ticks = try AsyncTickSequence(every: .seconds(60), clock: clock)
        let consumer = Task { () -> Int in
            var count = 0
            for await _ in ticks { count += 1 }
            return count
        }
        try #require(await clock.waitForPending())
        consumer.cancel()
        // The loop ends without the clock moving: cancellation does not wait for the deadline.
        #expect(await consumer.value == 0)
        #expect(clock.now == .zero)
        #expect(clock.pendingCount == 0)
    }

    @Test func nothingIsRetainedOnceACancelledLoopHasEnded() async throws {
        let base = VirtualClock()
        weak var weakClock: TrackedClock?
        var consumer: Task<Void, Never>?
        do {
            let clock = TrackedClock(base)
            weakClock = clock
            let ticks = try AsyncTickSequence(every: .seconds(1), clock: clock)
            consumer = Task {
                for await _ in ticks {}
            }
        }
        try #require(await base.waitForPending())
        #expect(weakClock != nil)
        consumer?.cancel()
        await consumer?.value
        consumer = nil
        #expect(base.pendingCount == 0)
        #expect(weakClock == nil)
    }

    @Test func aTaskCancelledBeforeItsFirstTickGetsNoTickAndArmsNothing() async throws {
        let clock = VirtualClock()
        let ticks = try clock.ticks(every: .seconds(1))
        let consumer = Task { () -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            var count = 0
            for await _ in ticks { count += 1 }
            return count
        }
        #expect(await consumer.value == 0)
        #expect(clock.pendingCount == 0)
    }

    @Test func aCancelledLoopGetsNoFurtherTickEvenWhenTicksAreDue() async throws {
        let clock = VirtualClock()
        let ticks = try AsyncTickSequence(every: .seconds(1), latePolicy: .burst, clock: clock)
        let log = AsyncTickLog<TimerInstant>()
        let consumer = Task {
            for await tick in ticks {
                log.record(tick)
                // Slow body: while it sleeps, ticks 2...4 fall due; it is cancelled before asking again.
                try? await clock.sleep(for: .milliseconds(3500))
            }
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .seconds(1))
        try #require(await eventually { log.count == 1 && clock.pendingCount == 1 })
        consumer.cancel()
        await consumer.value
        #expect(log.indices == [1])
        #expect(clock.pendingCount == 0)
    }
}
