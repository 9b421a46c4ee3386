/// Runs `operation` and, if it has not finished `timeout` after the call on `clock`, cancels it and throws
/// ``TimeoutError``.
///
/// ```swift
/// let reply = try await withTimeout(after: .seconds(2), clock: ContinuousClock()) {
///     try await connection.request("PING")
/// }
/// ```
///
/// - **Deadline**: `clock.now + timeout`, read when the call starts; the timeout fires no earlier, and
///   aims to fire by deadline + `leeway`.
/// - **On timeout** the operation's task is cancelled and the call waits for it to return (structured
///   concurrency: nothing outlives the call), then throws ``TimeoutError``, whatever the operation returned
///   or threw after the cancellation. So the call ends promptly only if the operation honours
///   cancellation.
/// - **Otherwise** the operation's value is returned, or its error rethrown, and the deadline is disarmed.
/// - **Cancelling the calling task** cancels the operation; the call throws `CancellationError` or what the
///   operation throws, never ``TimeoutError``.
///
/// Thread safety: the operation runs in a child task, concurrently with the caller's actor.
///
/// - Parameters:
///   - timeout: How long the operation may run; positive, at most 292 years (`Int64.max` ns).
///   - leeway: How late past the deadline the timeout may fire (default zero).
///   - clock: The clock the timeout is measured on.
///   - operation: The work to bound.
/// - Returns: The operation's value.
/// - Throws: ``TimeoutError`` (naming `timeout`) when time ran out;
///   ``TempoError`` with ``TempoError/Code/invalidInterval`` or ``TempoError/Code/invalidLeeway`` for bad
///   input, before the operation starts; otherwise the operation's error, or `CancellationError`.
public func withTimeout<C: Clock, Success: Sendable>(
    after timeout: Duration,
    leeway: Duration = .zero,
    clock: C,
    operation: @escaping @Sendable () async throws -> Success
) async throws -> Success where C.Duration == Duration {
    try TempoError.validateInterval(timeout, name: "timeout")
    try TempoError.validateLeeway(leeway)
    let deadline = clock.now.advanced(by: timeout)
    return try await withThrowingTaskGroup(of: TimeoutOutcome<Success>.self) { group in
        group.addTask {
            .finished(try await operation())
        }
        group.addTask {
            try await clock.sleep(until: deadline, tolerance: leeway)
            return .timedOut
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            preconditionFailure("a group with two tasks returned no result")
        }
        switch first {
        case .finished(let value):
            return value
        case .timedOut:
            throw TimeoutError(timeout: timeout)
        }
    }
}

/// Runs `operation` with a timeout measured on `ContinuousClock`; see
/// ``withTimeout(after:leeway:clock:operation:)``.
///
/// - Parameters:
///   - timeout: How long the operation may run.
///   - leeway: How late past the deadline the timeout may fire.
///   - operation: The work to bound.
/// - Returns: The operation's value.
/// - Throws: ``TimeoutError`` when time ran out, or the operation's error.
public func withTimeout<Success: Sendable>(
    after timeout: Duration,
    leeway: Duration = .zero,
    operation: @escaping @Sendable () async throws -> Success
) async throws -> Success {
    try await withTimeout(after: timeout, leeway: leeway, clock: ContinuousClock(), operation: operation)
}

/// Which child of a timeout's task group finished first.
private enum TimeoutOutcome<Success: Sendable>: Sendable {
    case finished(Success)
    case timedOut
}
