#if Postgres
import TempoPostgres

/// A step of a database test that did not end in time.
struct StepTimeout: Error, CustomStringConvertible {
    let step: String
    let limit: Duration
    var description: String { "timed out after \(limit): \(step)" }
}

/// Runs `body` as the named step of a test and throws ``StepTimeout`` naming it when it has not ended within
/// `limit`: a hang fails its test in seconds instead of blocking the run.
///
/// The body runs in a task of its own, which is cancelled and left behind on timeout (a wait that ignores
/// cancellation, such as a query on a client whose `run()` stopped, would otherwise hold the test forever). The
/// limits are generous: they catch hangs, never a slow machine.
@discardableResult
func step<T: Sendable>(
    _ name: String, within limit: Duration = .seconds(60), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withTimeout(limit, orThrow: StepTimeout(step: name, limit: limit), body)
}
#endif
