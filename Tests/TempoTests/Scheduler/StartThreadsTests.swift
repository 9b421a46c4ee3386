import Testing

@testable import Tempo

/// `SystemScheduler.startThreads(for:)` starts the named clocks' threads and the delivery pool ahead of the first
/// timer, and only those.
@Suite struct StartThreadsTests {
    @Test func startThreadsStartsTheNamedClocksAndThePoolAndNoOtherClock() {
        let scheduler = SystemScheduler()
        #expect(TimerClock.allCases.allSatisfy { !scheduler.driver(for: $0).hasStartedThreads })
        scheduler.startThreads(for: [.monotonic])
        #expect(scheduler.driver(for: .monotonic).hasStartedThreads)
        #expect(!scheduler.driver(for: .wall).hasStartedThreads)
        #expect(!scheduler.driver(for: .continuous).hasStartedThreads)
        #expect(DeliveryPool.shared.startedCount >= 2)
        scheduler.startThreads()
        scheduler.startThreads()  // again: nothing more to start
        #expect(TimerClock.allCases.allSatisfy { scheduler.driver(for: $0).hasStartedThreads })
    }

    @Test(.timeLimit(.minutes(2))) func aTimerOnAClockStartedAheadStillFires() async throws {
        let scheduler = SystemScheduler()
        scheduler.startThreads(for: [.monotonic])
        let (fired, continuation) = AsyncStream.makeStream(of: Void.self)
        let timer = try TempoTimer(.after(.milliseconds(1)), scheduler: scheduler) { _ in continuation.yield() }
            .start()
        defer { timer.cancel() }
        var iterator = fired.makeAsyncIterator()
        await iterator.next()
    }
}
