#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one driver thread of ``SystemScheduler`` keeps between wakes: its buffer of due work and the one mailbox
/// it may drain itself.
///
/// When a deadline wakes a driver thread, a timer with the default delivery would normally hand its mailbox to the
/// delivery pool, which costs a second thread wakeup and its latency. Instead, the first such timer of a wake
/// leaves its mailbox here and the driver thread drains it itself, under the alarm's guard (if the handlers run
/// longer than the guard allows, the clock's other thread takes over waiting for deadlines, so no other timer
/// waits for them). Every further timer of the same wake goes to the pool, in one batch once the wake's due work has
/// run (``deferred``): many timers due in one wake (leeway batching) then wake each pool worker at most once, instead
/// of once for every timer a worker finished before the driver thread handed it the next.
///
/// Each driver thread owns one context, found through a thread-specific key; only that thread touches it.
final class DriverContext: @unchecked Sendable {
    // @unchecked: a context is created by its driver thread and touched only by that thread.

    /// Which of the clock's driver threads owns this context (0 or 1).
    let index: Int
    /// The due work of one wake, reused from wake to wake so that a wake allocates no array: as taken, one run per
    /// shard that had due work; after ``mergeDueRuns()``, in the order it runs.
    var due: [(UInt64, CompactDeadlineQueue.Work)] = []
    /// The deadline (nanoseconds since the clock's origin) of each element of ``due``, as taken.
    var dueDeadlines: [Int64] = []
    /// Where each shard's run of ``due`` starts, as taken (only shards that had due work).
    var runStarts: [Int] = []
    /// Where ``mergeDueRuns()`` builds the merged order; swapped with ``due``, so both keep their capacity.
    private var merged: [(UInt64, CompactDeadlineQueue.Work)] = []
    /// The next element of each run while the runs are merged.
    private var cursors: [Int] = []
    /// Whether the thread is running due work and can take a mailbox to drain after it.
    var acceptsMailbox = false
    /// The mailbox taken in this wake.
    var mailbox: (any DeliveryLane)?
    /// Further mailboxes of this wake, handed to the delivery pool in one batch after the due work; reused from wake
    /// to wake, so that a wake allocates nothing once it has grown to the most timers due in one wake.
    var deferred: [any DeliveryLane] = []

    init(index: Int) {
        self.index = index
    }

    /// Puts ``due`` in the order it runs: by deadline, and among equal deadlines by id, which is scheduling order
    /// (see ``ClockDriver``). Each run is in that order already (a shard's queue pops by deadline, FIFO among equal
    /// deadlines, and a shard's ids increase in its insertion order but for actions scheduled at the same time on
    /// two threads, whose order is not defined), so this merges the runs: O(n · runs), and runs are at most the
    /// clock's shards. With one run it only clears the bookkeeping. Allocates nothing once the buffers have grown to
    /// the most actions due in one wake.
    func mergeDueRuns() {
        defer {
            dueDeadlines.removeAll(keepingCapacity: true)
            runStarts.removeAll(keepingCapacity: true)
        }
        guard runStarts.count > 1 else { return }
        cursors.removeAll(keepingCapacity: true)
        cursors.append(contentsOf: runStarts)
        merged.removeAll(keepingCapacity: true)
        merged.reserveCapacity(due.count)
        while true {
            var best = -1
            var run = 0
            while run < cursors.count {
                let end = run + 1 < runStarts.count ? runStarts[run + 1] : due.count
                let next = cursors[run]
                if next < end && (best < 0 || precedes(next, cursors[best])) {
                    best = run
                }
                run += 1
            }
            guard best >= 0 else { break }
            merged.append(due[cursors[best]])
            cursors[best] += 1
        }
        swap(&due, &merged)
        merged.removeAll(keepingCapacity: true)
    }

    /// Whether element `a` of ``due`` runs before element `b`: the earlier deadline, then the smaller id.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        dueDeadlines[a] != dueDeadlines[b] ? dueDeadlines[a] < dueDeadlines[b] : due[a].0 < due[b].0
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// Makes `self` the calling thread's context; called once by the driver thread that owns it.
    func install() {
        // The thread keeps a strong reference through `Unmanaged`; driver threads never exit.
        pthread_setspecific(Self.key, Unmanaged.passRetained(self).toOpaque())
    }

    /// The context of the calling thread, if it is a driver thread.
    static var current: DriverContext? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<DriverContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Takes `lane` if this thread is running due work: the first lane of a wake to drain on this thread after the
    /// due work, every further one to hand to the delivery pool with the others after it.
    ///
    /// - Returns: `false` when the thread is not running due work (the caller submits the lane itself).
    func take(_ lane: any DeliveryLane) -> Bool {
        guard acceptsMailbox else { return false }
        if mailbox == nil {
            mailbox = lane
        } else {
            deferred.append(lane)
        }
        return true
    }

    /// Hands the deferred lanes of this wake to `pool` in one batch, in the order they were taken.
    func submitDeferred(to pool: DeliveryPool) {
        guard !deferred.isEmpty else { return }
        pool.submit(contentsOf: deferred)
        deferred.removeAll(keepingCapacity: true)
    }
}
