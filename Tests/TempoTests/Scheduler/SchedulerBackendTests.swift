import Dispatch
import Synchronization
import Tempo
import Testing

/// Both backends of `SystemScheduler` on the real clocks, whatever `TEMPO_SCHEDULER_BACKEND` chose for `shared`
/// (CI runs the whole suite once per backend as well). Real time; asserts only what holds on a loaded machine.
@Suite struct SchedulerBackendTests {
    /// One scheduler per backend for the whole test process (each has its own driver threads).
    private static let schedulers = SystemScheduler.Backend.allCases.map { SystemScheduler(backend: $0) }

    @Test(arguments: SystemScheduler.Backend.allCases, TimerClock.allCases)
    func everyBackendFiresEveryClockNeverEarly(backend: SystemScheduler.Backend, clock: TimerClock) throws {
        let scheduler = try #require(Self.schedulers.first { $0.backend == backend })
        let done = DispatchSemaphore(value: 0)
        let early = Atomic<Int>(0)
        let started = scheduler.now(clock)
        let timer = try TempoTimer(
            every: .milliseconds(10), repeats: .times(5), latePolicy: .burst, clock: clock, scheduler: scheduler
        ) { tick in
            if scheduler.now(clock) < tick.due { early.add(1, ordering: .relaxed) }
            if tick.index == 5 { done.signal() }
        }
        timer.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(scheduler.now(clock) - started >= .milliseconds(50))
        #expect(early.load(ordering: .relaxed) == 0)
        #expect(timer.fireCount == 5)
    }

    @Test(arguments: SystemScheduler.Backend.allCases)
    func cancellingTheEarliestDeadlineStillFiresTheNext(backend: SystemScheduler.Backend) throws {
        let scheduler = try #require(Self.schedulers.first { $0.backend == backend })
        let fired = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let first = try TempoTimer.once(after: .milliseconds(5), scheduler: scheduler) { _ in
            fired.add(100, ordering: .relaxed)
        }
        first.cancel()
        try TempoTimer.once(after: .milliseconds(10), scheduler: scheduler) { _ in
            fired.add(1, ordering: .relaxed)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(fired.load(ordering: .relaxed) == 1)
        #expect(scheduler.pendingCount(on: .monotonic) == 0)
    }
}
