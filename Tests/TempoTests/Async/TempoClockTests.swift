import Tempo
import TempoTesting
import Testing

@Suite struct TempoClockTests {
    @Test func sleepReturnsWhenTheDeadlineIsReachedAndNotBefore() async throws {
        let clock = VirtualClock()
        let woke = Flag()
        let sleeper = Task {
            try await clock.sleep(until: .zero + .seconds(2), tolerance: .milliseconds(5))
            woke.set()
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .milliseconds(1999))
        #expect(clock.pendingCount == 1)
        #expect(!woke.isSet)
        clock.advance(by: .milliseconds(1))
        try await sleeper.value
        #expect(woke.isSet)
        #expect(clock.pendingCount == 0)
    }

    @Test func aWallClockSleepWakesWhenTheCalendarClockIsSetPastItsDeadline() async throws {
        let clock = VirtualClock()
        let wall = clock.clock(.wall)
        let deadline = wall.now + .seconds(3600)
        let sleeper = Task { try await Task.sleep(until: deadline, clock: wall) }
        try #require(await clock.waitForPending())
        clock.adjustWallClock(by: .seconds(3599))
        #expect(clock.pendingCount == 1)
        clock.adjustWallClock(by: .seconds(1))
        try await sleeper.value
        #expect(clock.now(.monotonic) == .zero)
    }

    @Test func aDeadlineThatIsNotInTheFutureReturnsAtOnce() async throws {
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: .zero + .seconds(1))
        try await TempoClock(.continuous, scheduler: clock).sleep(until: clock.now(.continuous))
        #expect(clock.pendingCount == 0)
    }

    @Test func cancellingASleepThrowsAtOnceAndReleasesTheDeadline() async throws {
        let clock = VirtualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try #require(await clock.waitForPending())
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.pendingCount == 0)
        #expect(clock.now == .zero)
    }

    @Test func aNegativeToleranceThrowsInvalidLeeway() async {
        await #expect {
            try await TempoClock(scheduler: VirtualClock()).sleep(for: .seconds(1), tolerance: .seconds(-1))
        } throws: { ($0 as? TempoError)?.code == .invalidLeeway }
    }

    @Test func realClockSleepIsNeverEarly() async throws {
        let clock = TempoClock.monotonic
        let start = clock.now
        try await clock.sleep(until: start + .milliseconds(20))
        #expect(clock.now - start >= .milliseconds(20))
        #expect(clock.minimumResolution == .nanoseconds(1))
    }
}
