import Dispatch
import Foundation
import Tempo
import TempoLocks
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Default delivery does not start a thread per timer (issue #12): timers share one pool of about one thread per
/// core, each in its own serial lane. Real time, with bounds that hold on a loaded 2-core machine.
@Suite struct DeliveryPoolTests {
    /// Measured in a process of its own (this test binary, filtered to this suite): in the shared test process,
    /// other suites' handlers that block hold threads of the same pool, and Dispatch then adds workers, which
    /// would be counted here although no timer of this test needed them.
    @Test func fiveThousandTimersDueTogetherUseAtMostCoresPlusTwoThreads() throws {
        if ProcessInfo.processInfo.environment[Self.aloneVariable] != nil {
            try measureAlone()
            return
        }
        let (status, text) = try runAlone(suite: "DeliveryPoolTests", variable: Self.aloneVariable)
        #expect(status == 0, "the measurement alone failed:\n\(text)")
        #expect(text.contains("threads ran the handlers"), "the measurement did not run:\n\(text)")
    }

    private static let aloneVariable = "TEMPO_DELIVERY_POOL_ALONE"

    private func measureAlone() throws {
        let count = 5_000
        let threads = TempoMutex<Set<UInt>>([])
        let done = DispatchSemaphore(value: 0)
        let fired = TempoMutex(0)
        let scheduler = SystemScheduler.shared
        let deadline = scheduler.now(.monotonic) + .milliseconds(200)
        var timers: [TempoTimer] = []
        for _ in 0..<count {
            let timer = try TempoTimer(.at(.monotonic(deadline))) { _ in
                // A little work, so that a pool that starts threads on demand would show it.
                let until = scheduler.now(.monotonic) + .microseconds(50)
                while scheduler.now(.monotonic) < until {}
                threads.withLock { _ = $0.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
                let total = fired.withLock { fired in
                    fired += 1
                    return fired
                }
                if total == count { done.signal() }
            }
            timers.append(timer)
        }
        for timer in timers { timer.start() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let used = threads.withLock { $0.count }
        print("\(used) threads ran the handlers of \(count) timers on \(cores) cores")
        #expect(used <= cores + 2, "\(used) threads ran the handlers of \(count) timers on \(cores) cores")
        for timer in timers { timer.cancel() }
    }
}
