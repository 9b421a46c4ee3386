import Synchronization
import TempoLocks

/// One shard of a ``ClockDriver``'s deadlines: a queue of its own, the stamps of its actions, and one lock.
///
/// A thread schedules on the shard of its thread ordinal, so threads that arm at the same time usually take
/// different locks and write different memory; a cancel goes to the shard named in the action's id.
final class ClockShard: Sendable {
    struct State: ~Copyable {
        var queue = CompactDeadlineQueue()
        /// The stamp of the shard's last action (see ``ClockDriver`` for how an id is made from it).
        var lastStamp: Int64 = 0
    }

    let state = TempoMutex(State())

    /// The queue's earliest wake in nanoseconds since the clock's origin (`Int64.max`: none), stored under the lock
    /// whenever a schedule moves it earlier and after every wake takes the due actions; a cancel leaves it (lower
    /// than the queue's, which costs one wake for nothing at most). A wake and a re-arm read it without the lock, so
    /// they lock only the shards with due work (see ``ClockDriver`` for why no deadline is lost).
    let earliest = Atomic<Int64>(.max)

    /// Keeps the next object of the heap off the cache lines of this shard's lock and queue: two shards armed from
    /// two cores at once must not write one line (false sharing costs about as much as sharing the lock).
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let morePadding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
}
