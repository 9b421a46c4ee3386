/// How often to try a failing run, and how long to wait between tries.
///
/// `RetryPolicy(attempts: 5, backoff: .exponential(initial: .seconds(1), cap: .seconds(60), jitter: .full))`
/// tries up to five times in all, waiting about 1, 2, 4 and 8 seconds (each drawn at random below that, with full
/// jitter) between them. Validated where it is used, which throws ``JobError`` with
/// ``JobError/Code/invalidRetryPolicy`` naming the bad value.
///
/// `RetryPolicy` is a value type and is `Sendable`.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts, the first included; at least 1.
    public var attempts: Int
    /// The waits between attempts.
    public var backoff: Backoff

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - attempts: The most attempts, the first included; at least 1.
    ///   - backoff: The waits between attempts.
    public init(attempts: Int, backoff: Backoff) {
        self.attempts = attempts
        self.backoff = backoff
    }

    /// Throws unless the policy can run.
    func validate(job: String?) throws(JobError) {
        guard attempts >= 1 else {
            throw JobError(
                .invalidRetryPolicy, job: job,
                message: "a retry policy needs at least 1 attempt, got \(attempts)\(Self.forJob(job))")
        }
        try backoff.validate(job: job)
    }

    static func forJob(_ job: String?) -> String {
        job.map { " (job \"\($0)\")" } ?? ""
    }
}
