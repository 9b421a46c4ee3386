import TempoLocks

/// A ``JobStore`` in memory: cursors last as long as the store (the default of ``JobScheduler``). Share one store
/// between two schedulers in a test to simulate a restart.
///
/// Thread-safety: the cursors are behind a lock; every method may be called from any task.
public final class InMemoryJobStore: JobStore {
    private let cursors = TempoMutex<[String: JobCursor]>([:])

    /// Creates an empty store.
    public init() {}

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
}
