/// The error ``withTimeout(after:leeway:clock:operation:)`` throws when the operation did not finish in time.
///
/// Kept apart from ``TempoError``, which reports bad input before anything runs: a timeout is an outcome at
/// run time, and `catch let error as TimeoutError` catches exactly it.
///
/// `TimeoutError` is a value type and is `Sendable`.
public struct TimeoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// How long the operation was allowed to run.
    public let timeout: Duration

    package init(timeout: Duration) {
        self.timeout = timeout
    }

    /// `operation did not finish within 2.0 seconds`.
    public var description: String { "operation did not finish within \(timeout)" }
}
