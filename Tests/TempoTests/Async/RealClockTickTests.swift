import Tempo
import Testing

/// Real clocks: asserts only what holds on a loaded machine (never early, the grid, the last slot).
@Suite struct RealClockTickTests {
    private func check<C: Clock>(_ clock: C) async throws where C.Duration == Duration {
        let interval = Duration.milliseconds(10)
        let start = clock.now
        var ticks: [AsyncTick<C.Instant>] = []
        for await tick in try clock.ticks(every: interval, repeats: .times(3)) {
            #expect(clock.now >= tick.due)
            ticks.append(tick)
        }
        let last = try #require(ticks.last)
        #expect(last.index == 3)
        #expect(start.advanced(by: interval * 3) <= last.due)
        for tick in ticks {
            #expect(tick.lateness >= .zero)
            #expect(tick.due == last.due.advanced(by: interval * (tick.index - 3)))
        }
        #expect(ticks.map(\.missed).reduce(0, +) + ticks.count == 3)
    }

    @Test func ticksOnContinuousClockAreNeverEarlyAndStayOnTheGrid() async throws {
        try await check(ContinuousClock())
    }

    @Test func ticksOnSuspendingClockAreNeverEarlyAndStayOnTheGrid() async throws {
        try await check(SuspendingClock())
    }

    @Test func ticksOnTempoClockAreNeverEarlyAndStayOnTheGrid() async throws {
        try await check(TempoClock.monotonic)
    }
}
