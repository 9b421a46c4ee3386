import Clocks
import Tempo
import Testing

/// Tempo's async API on swift-clocks' `TestClock`: a clock Tempo knows nothing about.
@Suite struct TestClockInteropTests {
    @Test func ticksFollowATestClockAndNeverComeEarly() async throws {
        let clock = TestClock()
        let start = clock.now
        let log = AsyncTickLog<TestClock<Duration>.Instant>()
        let ticks = try clock.ticks(every: .seconds(1), repeats: .times(3))
        let consumer = Task {
            for await tick in ticks { log.record(tick) }
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .milliseconds(999))
        #expect(log.count == 0)
        await clock.advance(by: .milliseconds(1))
        try #require(await eventually { log.count == 1 })
        for expected in 2...3 {
            try #require(await clock.waitForSleeper())
            await clock.advance(by: .seconds(1))
            try #require(await eventually { log.count == expected })
        }
        await consumer.value
        #expect(log.indices == [1, 2, 3])
        #expect(log.all.map(\.due) == [1, 2, 3].map { start.advanced(by: .seconds($0)) })
        #expect(log.all.allSatisfy { $0.lateness == .zero && $0.missed == 0 })
        try await clock.checkSuspension()
    }

    @Test func aSlowConsumerOnATestClockGetsOneCoalescedTick() async throws {
        let clock = TestClock()
        let log = AsyncTickLog<TestClock<Duration>.Instant>()
        let ticks = try clock.ticks(every: .seconds(1))
        let consumer = Task {
            for await tick in ticks {
                log.record(tick)
                if tick.index == 1 { try? await clock.sleep(for: .milliseconds(3500)) }
            }
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .seconds(1))
        try #require(await eventually { log.count == 1 })
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .milliseconds(3500))
        try #require(await eventually { log.count == 2 })
        consumer.cancel()
        await consumer.value
        #expect(log.indices == [1, 4])
        #expect(log.all.map(\.missed) == [0, 2])
        #expect(log.all.last?.lateness == .milliseconds(500))
        try await clock.checkSuspension()
    }

    @Test func timeoutOnATestClockThrowsTimedOutWhenTheClockPassesTheDeadline() async throws {
        let clock = TestClock()
        let call = Task {
            try await withTimeout(after: .seconds(2), clock: clock) {
                try await clock.sleep(for: .seconds(5))
                return "done"
            }
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .milliseconds(1999))
        await clock.advance(by: .milliseconds(1))
        await #expect { try await call.value } throws: { $0 is TimeoutError }
        try await clock.checkSuspension()
    }

    @Test func timeoutOnATestClockReturnsTheValueOfAnOperationThatFinishesInTime() async throws {
        let clock = TestClock()
        let call = Task {
            try await withTimeout(after: .seconds(2), clock: clock) {
                try await clock.sleep(for: .seconds(1))
                return "done"
            }
        }
        try #require(await clock.waitForSleeper())
        await clock.advance(by: .seconds(1))
        #expect(try await call.value == "done")
        try await clock.checkSuspension()
    }
}
