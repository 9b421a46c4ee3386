#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one driver thread of ``SystemScheduler`` keeps between wakes: its buffer of due work and the one mailbox
/// it may drain itself.
///
/// When a deadline wakes a driver thread, a timer with the default delivery would normally hand its mailbox to the
/// delivery pool, which costs a second thread wakeup and its latency. Instead, the timers of a wake leave their
/// mailboxes here (the first in ``mailbox``, the others in ``deferred``) and, once the wake's due work has run, the
/// driver thread drains them itself, under the alarm's guard (if the handlers run longer than the guard allows, the
/// clock's other thread takes over waiting for deadlines, so no other timer waits for them). A lone mailbox is drained
/// directly; several go to the delivery pool as one ``LaneBatch`` that the driver thread runs too, and that wakes one
/// pool worker per ``DeliveryPool/lanesPerHelper`` lanes to help: many timers due in one wake (leeway batching) then
/// cost no other thread wakeup, many timers due at one instant (mass expiry) are shared out with no lock and no
/// wakeup per timer, and a handler that blocks holds up only the lane it runs in (the other thread that takes over
/// waiting calls in a pool worker for the rest, ``DeliveryPool/serveWaiting()``).
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
    /// Further mailboxes of this wake, run with ``mailbox`` in one batch after the due work; reused from wake to wake,
    /// so that a wake allocates nothing once it has grown to the most timers due in one wake.
    var deferred: [any DeliveryLane] = []
    /// The batch of the last wake that had several mailboxes, filled again when no pool worker still runs it.
    private var batch: LaneBatch?

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
    /// due work, every further one to run in one batch with it (see ``runTaken(on:)``).
    ///
    /// - Returns: `false` when the thread is not running due work (the caller submits the lane itself).
    func take(_ lane: any DeliveryLane) -> Bool {
        guard acceptsMailbox else { return false }
        if mailbox == nil {
            mailbox = lane
        } else {
            deferred.append(lane)
            if deferred.count == Self.flushCount { flushDeferred(to: .shared) }
        }
        return true
    }

    /// How many deferred lanes a wake hands to the pool while its due work still runs: when that many timers are due
    /// at once, pool workers start on them meanwhile instead of waiting for the last due action (mass expiry).
    static let flushCount = 256

    /// Hands the deferred lanes to `pool` as a batch of their own, waking or starting one worker for it (a worker
    /// that finds it exhausted takes it out of the ring); when none is free, the pool's check for stuck workers is
    /// armed, as for any lane that waits. Allocates the batch: only when more than ``flushCount`` timers are due in
    /// one wake.
    func flushDeferred(to pool: DeliveryPool) {
        let batch = LaneBatch(capacity: deferred.count)
        batch.fill(&deferred)
        pool.submit(batch: batch, helpers: 1)
    }

    /// Runs the lanes taken in this wake, in the order they were taken: a lone one on this thread; several as one
    /// ``LaneBatch`` submitted to `pool` and run by this thread with the workers it wakes (one per
    /// ``DeliveryPool/lanesPerHelper`` lanes). Returns once every lane was taken (some may still run on workers).
    ///
    /// - Parameter standsBy: Whether the clock's other thread still stands by to take over waiting. When it does not
    ///   (it took over already, while the due work ran long, and will not call in a pool worker again), a worker is
    ///   called in for the batch at once, so that a handler that blocks this thread cannot hold the batch's others.
    func runTaken(on pool: DeliveryPool, standsBy: () -> Bool = { true }) {
        guard let first = mailbox else { return }
        mailbox = nil
        guard !deferred.isEmpty else {
            first.runDeliveries()
            return
        }
        let batch: LaneBatch
        if let reusable = self.batch, reusable.isReusable {
            batch = reusable
        } else {
            // The last batch still has a worker in it (finishing its last lane): leave it to that worker.
            batch = LaneBatch()
            self.batch = batch
        }
        batch.fill(first: first, rest: &deferred)
        pool.submit(batch: batch, helpers: batch.count / DeliveryPool.lanesPerHelper)
        // After the submission: a take-over from now on finds the batch in the ring and calls a worker in itself.
        if !standsBy() { pool.serveWaiting() }
        batch.run()
        pool.finish(batch)
    }
}
