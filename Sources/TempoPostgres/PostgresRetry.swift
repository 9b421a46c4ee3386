#if Postgres
import Logging
import Synchronization
import TempoJobs

/// How database calls are retried: `attempts` tries in all, waiting `firstWait` after the first failure, then
/// twice as long each time up to `maximumWait`; each failure is logged at warning level.
///
/// Each try is bounded by `attemptTimeout`: postgres-nio's pool makes a query wait for a connection while the
/// server is down, so without a bound an outage would be a silent wait. A try with no answer in time fails with
/// `JobError` `storeTimedOut` (logged and retried like any error); its query is cancelled and left to
/// end on its own, so a claim whose answer came too late stays unfinished and, once its lease ran out, is an
/// abandoned date for the catch-up policy (see ``PostgresJobCoordinator``).
///
/// `PostgresRetry` is a value type and is `Sendable`.
public struct PostgresRetry: Sendable, Hashable {
    /// Tries in all, the first included (at least 1).
    public var attempts: Int
    /// The wait after the first failure (not negative).
    public var firstWait: Duration
    /// The longest wait (not less than `firstWait`).
    public var maximumWait: Duration
    /// The longest one try may wait for its answer, a connection included (more than zero).
    public var attemptTimeout: Duration

    /// Creates a retry policy.
    ///
    /// - Parameters:
    ///   - attempts: Tries in all (default 5).
    ///   - firstWait: The first wait (default 50 ms).
    ///   - maximumWait: The longest wait (default 1 s).
    ///   - attemptTimeout: The longest one try may wait for its answer (default 5 s).
    public init(
        attempts: Int = 5, firstWait: Duration = .milliseconds(50), maximumWait: Duration = .seconds(1),
        attemptTimeout: Duration = .seconds(5)
    ) {
        self.attempts = attempts
        self.firstWait = firstWait
        self.maximumWait = maximumWait
        self.attemptTimeout = attemptTimeout
    }

    /// Throws `JobError` `invalidConfiguration` naming a value out of range.
    func validate() throws(JobError) {
        guard attempts >= 1 else {
            throw JobError(
                .invalidConfiguration, message: "retry attempts must be at least 1, not \(attempts)")
        }
        guard firstWait >= .zero, maximumWait >= firstWait else {
            throw JobError(
                .invalidConfiguration,
                message: "retry waits must satisfy 0 <= firstWait <= maximumWait, not \(firstWait) and \(maximumWait)")
        }
        guard attemptTimeout > .zero else {
            throw JobError(
                .invalidConfiguration,
                message: "the retry's attempt timeout must be more than zero, not \(attemptTimeout)")
        }
    }

    /// Runs `body` until it succeeds or the attempts are used up; rethrows the last error. Cancellation ends the
    /// waits and rethrows at once.
    ///
    /// A twin of TempoJobs' `retry(attempts:backoff:clock:_:)`, kept on purpose (issue #43): each try here runs under
    /// the timeout that leaves a stuck query behind, and each failure is logged with the call's metadata. Known
    /// limit: its waits (50 ms to 1 s by default) sleep on the real clock, not on the scheduler's injected one.
    @discardableResult
    func run<T: Sendable>(
        _ what: String, logger: Logger, metadata: Logger.Metadata = [:],
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        var wait = firstWait
        var attempt = 1
        while true {
            do {
                return try await withTimeout(attemptTimeout, what, body)
            } catch {
                var metadata = metadata
                metadata["error"] = "\(String(reflecting: error))"
                metadata["attempt"] = "\(attempt)"
                guard attempt < attempts, !Task.isCancelled else {
                    logger.error("postgres: \(what) failed; giving up", metadata: metadata)
                    throw error
                }
                logger.warning("postgres: \(what) failed; retrying in \(wait)", metadata: metadata)
                try await Task.sleep(for: wait)
                wait = min(wait * 2, maximumWait)
                attempt += 1
            }
        }
    }
}

/// Runs `body` in a task of its own and returns its result, or throws `JobError` `storeTimedOut` (built only then)
/// when it has not ended within `limit` (and `CancellationError` when the caller is cancelled). The body's task is
/// then cancelled and left to end on its own: a query waiting for a connection of postgres-nio's pool may not end at
/// once.
func withTimeout<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withTimeout(
        limit, orThrow: JobError(.storeTimedOut, message: "\(what) got no answer within \(limit)"), body)
}

/// Runs `body` in a task of its own and returns its result, or throws `timeout()` when it has not ended within
/// `limit` (and `CancellationError` when the caller is cancelled); `timeout` is evaluated only then. Either way the
/// caller goes on at once: the body's task is cancelled and left behind, since a wait that ignores cancellation
/// (a query waiting for a connection of postgres-nio's pool) would otherwise hold the caller. Also the time limit of
/// the database tests' steps. Any thread or task.
///
/// Cost per call: one unstructured task (the body's), one child task (the deadline, a `Task.sleep` on the
/// continuous clock, cancelled when the body ends first) and one continuation.
package func withTimeout<T: Sendable>(
    _ limit: Duration, orThrow timeout: @autoclosure @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Outcome<T>()
    // Unstructured, and the only one: a child task that ignores cancellation would hold the caller (a task group
    // waits for its children before it returns), so the body runs where it can be left behind.
    let work = Task {
        do {
            outcome.finish(.success(try await body()))
        } catch {
            outcome.finish(.failure(error))
        }
    }
    defer { work.cancel() }
    return try await withThrowingTaskGroup(of: Void.self) { deadline in
        deadline.addTask {
            do {
                try await Task.sleep(for: limit)
            } catch {
                return  // the body ended first, or the caller was cancelled
            }
            outcome.finish(.failure(timeout()))
        }
        defer { deadline.cancelAll() }
        return try await outcome.value()
    }
}

/// The first of a body's result, its deadline and the caller's cancellation; resumes the waiting caller once.
private final class Outcome<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<T, any Error>?)
        case done(Result<T, any Error>)
    }

    private let state = Mutex(State.waiting(nil))

    /// Records `result` unless one was recorded, and resumes the caller if it waits.
    func finish(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    /// The first result recorded; `CancellationError` as soon as the caller is cancelled.
    func value() async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let done: Result<T, any Error>? = state.withLock { state in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .done(let result):
                        return result
                    }
                }
                if let done { continuation.resume(with: done) }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}
#endif
