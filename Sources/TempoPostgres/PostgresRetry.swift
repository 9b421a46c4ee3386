#if Postgres
import Logging

/// How database calls are retried: `attempts` tries in all, waiting `firstWait` after the first failure, then
/// twice as long each time up to `maximumWait`; each failure is logged at warning level.
///
/// `PostgresRetry` is a value type and is `Sendable`.
public struct PostgresRetry: Sendable, Hashable {
    /// Tries in all, the first included (at least 1).
    public var attempts: Int
    /// The wait after the first failure (not negative).
    public var firstWait: Duration
    /// The longest wait (not less than `firstWait`).
    public var maximumWait: Duration

    /// Creates a retry policy.
    ///
    /// - Parameters:
    ///   - attempts: Tries in all (default 5).
    ///   - firstWait: The first wait (default 50 ms).
    ///   - maximumWait: The longest wait (default 1 s).
    public init(attempts: Int = 5, firstWait: Duration = .milliseconds(50), maximumWait: Duration = .seconds(1)) {
        self.attempts = attempts
        self.firstWait = firstWait
        self.maximumWait = maximumWait
    }

    /// Throws ``PostgresJobsError/Code/invalidConfiguration`` naming a value out of range.
    func validate() throws(PostgresJobsError) {
        guard attempts >= 1 else {
            throw PostgresJobsError(
                .invalidConfiguration, message: "retry attempts must be at least 1, not \(attempts)")
        }
        guard firstWait >= .zero, maximumWait >= firstWait else {
            throw PostgresJobsError(
                .invalidConfiguration,
                message: "retry waits must satisfy 0 <= firstWait <= maximumWait, not \(firstWait) and \(maximumWait)")
        }
    }

    /// Runs `body` until it succeeds or the attempts are used up; rethrows the last error. Cancellation ends the
    /// waits and rethrows at once.
    @discardableResult
    func run<T: Sendable>(
        _ what: String, logger: Logger, metadata: Logger.Metadata = [:], _ body: () async throws -> T
    ) async throws -> T {
        var wait = firstWait
        var attempt = 1
        while true {
            do {
                return try await body()
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
#endif
