import Foundation
import Logging
import Synchronization
import TempoJobs
import Testing

/// A control store whose writes of a job's next dates wait for the test to let them through (`open()`), ignoring
/// cancellation, or, with `honorsCancellation`, wait for an hour unless cancelled (a database that does not answer);
/// every other call goes to an `InMemoryJobStore`.
private final class GatedPublishStore: JobControlStore {
    let inner = InMemoryJobStore()
    let events = Mutex<[String]>([])
    let honorsCancellation: Bool
    private let gate = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(honorsCancellation: Bool = false) {
        self.honorsCancellation = honorsCancellation
    }

    /// Lets every publish waiting, and every later one, through.
    func open() {
        let waiters = gate.withLock { gate in
            gate.open = true
            defer { gate.waiters = [] }
            return gate.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func publish(_ description: JobDescription) async throws {
        events.withLock { $0.append("publish began") }
        if honorsCancellation {
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                events.withLock { $0.append("publish cancelled") }
                throw error
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = gate.withLock { gate in
                if !gate.open { gate.waiters.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        try await inner.publish(description)
        events.withLock { $0.append("publish ended") }
    }

    func cursor(for job: String) async throws -> JobCursor? { try await inner.cursor(for: job) }
    func save(_ cursor: JobCursor, for job: String) async throws { try await inner.save(cursor, for: job) }
    func save(_ cursor: JobCursor, for job: String, releasing claim: any JobClaim, succeeded: Bool) async throws {
        try await inner.save(cursor, for: job, releasing: claim, succeeded: succeeded)
    }
    func jobOverviews() async throws -> [JobOverview] { try await inner.jobOverviews() }
    func jobDetail(named job: String, historyLimit: Int) async throws -> JobDetail? {
        try await inner.jobDetail(named: job, historyLimit: historyLimit)
    }
    func pause(job: String) async throws { try await inner.pause(job: job) }
    func resume(job: String) async throws { try await inner.resume(job: job) }
    func requestRun(of job: String) async throws -> Date { try await inner.requestRun(of: job) }
    func controlUpdates() -> AsyncStream<[String: JobControl]> { inner.controlUpdates() }
    func record(_ run: JobRunRecord, cursor: JobCursor?, releasing claim: any JobClaim) async throws {
        try await inner.record(run, cursor: cursor, releasing: claim)
    }
}

/// `run()` returns only once the scheduler's writes to its store ended: a write of a job's next dates still in flight
/// at shutdown kept going after `run()` had returned, so an app that closes its database client after `run()` would
/// have had it used afterwards.
@Suite struct PublishShutdownTests {
    /// Runs a scheduler with one job on `store`, triggers shutdown once its first publish began, then calls
    /// `afterShutdown`; returns once `run()` returned (its return recorded in the store's events).
    private func runAndShutDown(_ store: GatedPublishStore, afterShutdown: () async throws -> Void = {}) async throws {
        let scheduler = JobScheduler(store: store, logger: Logger(label: "test"), clock: ContinuousClock())
        try scheduler.register("tick", .every(.seconds(3600))) { _ in }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await scheduler.run()
                store.events.withLock { $0.append("run returned") }
            }
            // Event waits, bounded only to catch a hang.
            try await Self.waitUntil { store.events.withLock { $0.contains("publish began") } }
            scheduler.triggerGracefulShutdown()
            try await afterShutdown()
            try await group.waitForAll()
        }
    }

    @Test func runReturnsOnlyOnceAPublishInFlightEnded() async throws {
        let store = GatedPublishStore()
        try await runAndShutDown(store) {
            // Without the wait for the publish, `run()` returns within this second, before the gate opens (on a very
            // loaded machine it may not, and the order below then does not tell: the test can only pass, never flake).
            try await Self.waitUntil(atMost: .seconds(1)) { store.events.withLock { $0.contains("run returned") } }
            store.open()
        }
        #expect(store.events.withLock { $0 } == ["publish began", "publish ended", "run returned"])
    }

    /// A write that waits for a database that does not answer is cancelled when shutdown begins: `run()` waits for
    /// it to end, not for the store's retries.
    @Test func shutdownCancelsAPublishInFlight() async throws {
        let store = GatedPublishStore(honorsCancellation: true)
        try await runAndShutDown(store)
        #expect(store.events.withLock { $0 } == ["publish began", "publish cancelled", "run returned"])
    }

    /// Polls `condition` every 10 ms until it holds or `limit` passed (60 s: only a hang).
    private static func waitUntil(atMost limit: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
