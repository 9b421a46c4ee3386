import Dispatch
import Foundation
import Logging
import Synchronization
import TempoJobs
import Testing

/// A body that blocks its thread (a synchronous sleep, a lock, blocking I/O) from its first line cannot keep `run()`
/// past the grace period plus the abandon delay. On the real clock: the body really blocks a thread. Nothing here
/// waits a fixed time for something that only needs CPU: the test waits for events, with bounds that catch a hang.
@Suite struct BlockingBodyTests {
    @Test func runReturnsWhileABodyStillBlocksItsThread() async throws {
        let release = DispatchSemaphore(value: 0)
        let started = Atomic(false)
        let ended = Atomic(false)
        let logger = Logger(label: "test") { _ in RecordingLogHandler(trace: Trace()) }
        let scheduler = JobScheduler(
            configuration: .init(gracePeriod: .milliseconds(100), abandonAfter: .milliseconds(100)), logger: logger,
            clock: ContinuousClock())
        try scheduler.register("blocks", .every(.milliseconds(50))) { _ in
            started.store(true, ordering: .releasing)
            // Blocks its thread (the planner's: the run starts on it) until the test lets it go; 120 s at most.
            _ = release.wait(timeout: .now() + .seconds(120))
            ended.store(true, ordering: .releasing)
        }
        let running = Task { try await scheduler.run() }
        // Wait for the body to block (a bound that only catches a hang).
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        while !started.load(ordering: .acquiring), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let didStart = started.load(ordering: .acquiring)
        try #require(didStart)
        scheduler.triggerGracefulShutdown()
        // `run()` returns after about 200 ms on an idle machine; the bound only catches a hang (before: it returned
        // only when the body did, here never before the semaphore).
        let returned = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await running.value
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        let bodyEndedFirst = ended.load(ordering: .acquiring)
        release.signal()
        #expect(returned, "run() did not return within 60 s while a body blocked its thread")
        #expect(!bodyEndedFirst)
    }
}
