import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Interleavings the stress suite found, replayed deterministically.
@Suite struct StressRegressionTests {
    @Test func aRestartBeforeTheLastTickIsDeliveredDoesNotCountItTwice() throws {
        // Found by `StressTests` under ASan: "once/immediate: fireCount 2 exceeds 1". The one-shot's tick is
        // handed to delivery and the timer finishes; another thread restarts it before the tick is claimed.
        let scheduler = DeferredDeliveryScheduler()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1), delivery: .immediate), scheduler: scheduler, log.record).start()
        scheduler.virtual.advance(by: .seconds(1))
        #expect(timer.state == .finished)
        timer.start()
        scheduler.runDeferred()
        #expect(log.indices == [1])
        scheduler.virtual.advance(by: .seconds(1))
        scheduler.runDeferred()
        #expect(log.indices == [1, 1])
        #expect(timer.fireCount <= 1, "fireCount \(timer.fireCount) exceeds the one-shot's single tick")
        timer.cancel()
    }
}

/// A `VirtualClock` whose deliveries wait until the test runs them, to interleave calls with a pending drain.
final class DeferredDeliveryScheduler: DeliveringScheduler {
    let virtual = VirtualClock()
    private let deferred = TempoMutex<[@Sendable () -> Void]>([])

    func now(_ clock: TimerClock) -> TimerInstant { virtual.now(clock) }

    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        virtual.schedule(at: deadline, leeway: leeway, clock: clock, action)
    }

    func cancel(_ action: ScheduledAction) { virtual.cancel(action) }

    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        deferred.withLock { $0.append(work) }
    }

    func runDeferred() {
        while let work = deferred.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { work() }
    }
}
