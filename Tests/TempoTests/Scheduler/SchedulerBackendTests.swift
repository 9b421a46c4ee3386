import Dispatch
import Synchronization
import Tempo
import Testing

/// Both backends of `SystemScheduler` on the real clocks, whatever `TEMPO_SCHEDULER_BACKEND` chose for `shared`
/// (CI runs the whole suite once per backend as well). Real time; asserts only what holds on a loaded machine.
/// Serialized: the tests share the two schedulers, and one test counts the actions pending on them.
@Suite(.serialized) struct SchedulerBackendTests {
    /// One scheduler per backend for the whole test process (each has its own driver threads).
    private static let schedulers = SystemScheduler.Backend.allCases.map { SystemScheduler(backend: $0) }

    /// `TEMPO_SCHEDULER_BACKEND` as `shared` reads it: a known name selects its backend silently; no value or an
    /// empty one is the platform default, silently; an unknown name is the platform default after one warning that
    /// names it (never a trap: a library must not stop the process over an environment variable).
    @Test func theBackendVariableNeverTrapsAndNamesAnUnknownValueOnce() {
        var warnings: [String] = []
        for backend in SystemScheduler.Backend.allCases {
            #expect(SystemScheduler.backend(named: backend.rawValue) { warnings.append($0) } == backend)
        }
        #expect(SystemScheduler.backend(named: nil) { warnings.append($0) } == .platformDefault)
        #expect(SystemScheduler.backend(named: "") { warnings.append($0) } == .platformDefault)
        #expect(warnings.isEmpty)
        #expect(SystemScheduler.backend(named: "kqueue") { warnings.append($0) } == .platformDefault)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("TEMPO_SCHEDULER_BACKEND=kqueue") == true)
        #expect(warnings.first?.contains(SystemScheduler.Backend.platformDefault.rawValue) == true)
    }

    @Test(arguments: SystemScheduler.Backend.allCases, TimerClock.allCases)
    func everyBackendFiresEveryClockNeverEarly(backend: SystemScheduler.Backend, clock: TimerClock) throws {
        let scheduler = try #require(Self.schedulers.first { $0.backend == backend })
        let done = DispatchSemaphore(value: 0)
        let early = Atomic<Int>(0)
        let started = scheduler.now(clock)
        let timer = try TempoTimer(
            .every(.milliseconds(10), repeats: .times(5), latePolicy: .burst, clock: clock), scheduler: scheduler
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
        let firstDeadline = scheduler.now(.monotonic) + .milliseconds(20)
        let first = try TempoTimer(.after(.milliseconds(20)), scheduler: scheduler) { _ in
            fired.add(100, ordering: .relaxed)
        }.start()
        first.cancel()
        // On a loaded machine this thread can lose the processor past the first deadline; then it may have fired.
        let cancelledInTime = scheduler.now(.monotonic) < firstDeadline
        try TempoTimer(.after(.milliseconds(40)), scheduler: scheduler) { _ in
            fired.add(1, ordering: .relaxed)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        if cancelledInTime {
            #expect(fired.load(ordering: .relaxed) == 1)
        } else {
            #expect(fired.load(ordering: .relaxed) % 100 == 1)
        }
        #expect(scheduler.pendingCount(on: .monotonic) == 0)
    }
}
