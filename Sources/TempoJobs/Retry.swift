/// Runs `operation` until it succeeds, up to `attempts` times, waiting on `clock` between attempts as `backoff`
/// says.
///
/// ```swift
/// let body = try await retry(
///     attempts: 4, backoff: .exponential(initial: .milliseconds(200), cap: .seconds(5)), clock: ContinuousClock()
/// ) { attempt in
///     try await fetchReport()
/// }
/// ```
///
/// Timing: attempt 1 starts at once; attempt n + 1 starts the backoff's wait for retry n after attempt n threw
/// (exact on a `VirtualClock` or any test clock when the backoff has no jitter). A `CancellationError` thrown by
/// the operation is not retried.
///
/// Cancellation: a cancelled task ends the wait at once and throws `CancellationError`; no further attempt starts.
///
/// Thread-safety: runs on the caller's task; `operation` is called on it, one attempt at a time.
///
/// - Parameters:
///   - attempts: The most attempts, the first included; at least 1.
///   - backoff: The waits between attempts.
///   - randomSeed: A seed for the jitter's generator, for the same waits on every run (default: the system's
///     generator).
///   - clock: The clock to wait on.
///   - isolation: The caller's actor, on which `operation` runs.
///   - operation: The work, given the attempt number (1 for the first).
/// - Returns: What the first successful attempt returned.
/// - Throws: ``JobError`` with ``JobError/Code/invalidRetryPolicy`` for bad `attempts` or `backoff` (before any
///   attempt); the last attempt's error when every attempt failed; `CancellationError` when cancelled.
public func retry<C: Clock, Result>(
    attempts: Int,
    backoff: Backoff,
    randomSeed: UInt64? = nil,
    clock: C,
    isolation: isolated (any Actor)? = #isolation,
    operation: (_ attempt: Int) async throws -> Result
) async throws -> Result where C.Duration == Duration {
    try RetryPolicy(attempts: attempts, backoff: backoff).validate(job: nil)
    var generator = JobRandom(seed: randomSeed)
    var previous: Duration?
    var attempt = 1
    while true {
        try Task.checkCancellation()
        do {
            return try await operation(attempt)
        } catch let error as CancellationError {
            throw error
        } catch {
            guard attempt < attempts else { throw error }
            let wait = backoff.delay(retry: attempt, previous: previous, using: &generator)
            previous = wait
            try await clock.sleep(until: clock.now.advanced(by: wait), tolerance: nil)
            attempt += 1
        }
    }
}
