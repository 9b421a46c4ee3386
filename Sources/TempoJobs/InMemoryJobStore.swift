public import Foundation
import TempoLocks

/// A ``JobStore`` in memory: cursors, and the control and history of ``JobControlStore``, last as long as the store
/// (the default of ``JobScheduler``). Share one store between two schedulers in a test to simulate a restart.
///
/// Operators' writes (``pause(job:)``, ``resume(job:)``, ``requestRun(of:)``) reach every scheduler of the store at
/// once: each ``controlUpdates()`` stream gets the new control before the write returns. Each job keeps its last
/// ``historyLimit`` runs. The dates of run-now requests and the "now" of the next dates are read from the store's
/// wall clock (`Date()` by default; a virtual one in tests).
///
/// Thread-safety: the state is behind a lock; every method may be called from any task.
public final class InMemoryJobStore: JobControlStore {
    private let cursors = TempoMutex<[String: JobCursor]>([:])
    private let book = TempoMutex(JobControlBook())
    private let watchers = TempoMutex<[UInt64: AsyncStream<[String: JobControl]>.Continuation]>([:])
    private let nextWatcher = TempoMutex<UInt64>(0)

    private let wallClock: @Sendable () -> Date

    /// The most runs kept per job (the oldest are dropped first).
    public let historyLimit: Int

    /// Creates an empty store that keeps the last 100 runs of each job, on `Date()`.
    public init() {
        historyLimit = 100
        wallClock = { Date() }
    }

    /// Creates an empty store that keeps the last `historyLimit` runs of each job.
    ///
    /// - Parameters:
    ///   - historyLimit: The most runs kept per job: 0 keeps none, at most 1,000,000 (default 100).
    ///   - wallClock: The source of the run-now dates and of "now" for the next dates (default `Date.init`; pass
    ///     the scheduler's `wallClock` in tests).
    /// - Throws: ``JobError`` ``JobError/Code/invalidConfiguration`` naming a limit out of that range.
    public init(historyLimit: Int = 100, wallClock: @escaping @Sendable () -> Date = { Date() }) throws(JobError) {
        self.historyLimit = try Self.validated(historyLimit: historyLimit)
        self.wallClock = wallClock
    }

    /// Checks a history limit (0 through 1,000,000).
    package static func validated(historyLimit: Int) throws(JobError) -> Int {
        guard (0...1_000_000).contains(historyLimit) else {
            throw JobError(
                .invalidConfiguration,
                message: "the history limit must be between 0 and 1,000,000 runs per job, not \(historyLimit)")
        }
        return historyLimit
    }

    /// The cursor stored for `job`, or `nil`.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The cursor.
    public func cursor(for job: String) async throws -> JobCursor? {
        cursors.withLock { $0[job] }
    }

    /// Stores `cursor` for `job`.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    public func save(_ cursor: JobCursor, for job: String) async throws {
        cursors.withLock { $0[job] = cursor }
    }

    /// Every published job, sorted by name.
    ///
    /// - Returns: The overviews.
    public func jobOverviews() async throws -> [JobOverview] {
        let now = wallClock()
        return book.withLock { $0.overviews(now: now) }
    }

    /// One job's detail, or `nil` when no scheduler published it.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - historyLimit: The most runs to return.
    /// - Returns: The detail (its claims are always empty: one process).
    public func jobDetail(named job: String, historyLimit: Int) async throws -> JobDetail? {
        let now = wallClock()
        return book.withLock { $0.detail(of: job, historyLimit: historyLimit, now: now) }
    }

    /// Pauses `job` on every scheduler of the store, at once.
    ///
    /// - Parameter job: The job's name.
    /// - Throws: ``JobError/Code/unknownJob`` when no scheduler published it.
    public func pause(job: String) async throws {
        try change { book throws(JobError) in try book.set(.paused, of: job, at: wallClock(), store: "in-memory store")
        }
    }

    /// Resumes `job` on every scheduler of the store, at once.
    ///
    /// - Parameter job: The job's name.
    /// - Throws: ``JobError/Code/unknownJob`` when no scheduler published it.
    public func resume(job: String) async throws {
        try change { book throws(JobError) in try book.set(.active, of: job, at: wallClock(), store: "in-memory store")
        }
    }

    /// Asks for one extra run of `job`; the schedulers of the store see it at once.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The request's date.
    /// - Throws: ``JobError/Code/unknownJob`` when no scheduler published it.
    public func requestRun(of job: String) async throws -> Date {
        try change { book throws(JobError) in try book.requestRun(of: job, at: wallClock(), store: "in-memory store") }
    }

    /// Keeps what a scheduler publishes about a job.
    ///
    /// - Parameter description: The job's description.
    public func publish(_ description: JobDescription) async throws {
        change { $0.descriptions[description.name] = description }
    }

    /// The control of every job: now, then after each write.
    ///
    /// - Returns: A stream of its own.
    public func controlUpdates() -> AsyncStream<[String: JobControl]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [String: JobControl].self, bufferingPolicy: .bufferingNewest(1))
        let id = nextWatcher.withLock { id in
            id += 1
            return id
        }
        watchers.withLock { $0[id] = continuation }
        // Strong, not weak: the cycle (store, watchers, continuation, this closure) ends when the stream does (its
        // consumer cancelled or dropped it). A weak capture gave the store a side table that LeakSanitizer cannot see
        // through the reference count's bits, reported as a leak in any process that exits with the store alive
        // (the SIGTERM test's tempo-jobs-demo under ASan).
        continuation.onTermination = { _ in
            _ = self.watchers.withLock { $0.removeValue(forKey: id) }
        }
        continuation.yield(book.withLock { $0.allControls })
        return stream
    }

    /// Releases the claim, stores the cursor (if any) and adds the run to its job's history.
    ///
    /// - Parameters:
    ///   - run: The finished run.
    ///   - cursor: The cursor to store, or `nil`.
    ///   - claim: The run's claim.
    public func record(_ run: JobRunRecord, cursor: JobCursor?, releasing claim: any JobClaim) async throws {
        await claim.release(succeeded: run.outcome == .succeeded)
        if let cursor { cursors.withLock { $0[run.job] = cursor } }
        let limit = historyLimit
        if run.trigger == .runNow {
            change { $0.record(run, limit: limit) }
        } else {
            book.withLock { $0.record(run, limit: limit) }
        }
    }

    /// Changes the book under its lock, then hands every watcher the new controls (outside the lock).
    private func change<T, E: Error>(_ body: (inout JobControlBook) throws(E) -> T) throws(E) -> T {
        let (value, controls) = try book.withLock { book throws(E) in
            let value = try body(&book)
            return (value, book.allControls)
        }
        for watcher in watchers.withLock({ Array($0.values) }) { watcher.yield(controls) }
        return value
    }
}
