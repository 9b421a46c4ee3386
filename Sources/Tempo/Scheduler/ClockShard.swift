import TempoLocks

/// One shard of a ``ClockDriver``'s deadlines: a queue of its own, the numbers of its actions, and one lock.
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

    /// Keeps the next object of the heap off the cache lines of this shard's lock and queue: two shards armed from
    /// two cores at once must not write one line (false sharing costs about as much as sharing the lock).
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let morePadding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
}
