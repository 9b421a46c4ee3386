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
/// A mass expiry (a wake with ``flushCount`` or more due actions) goes further: the default-delivery timers among the
/// due actions are not run here at all but gathered whole into the same batches (``LaneBatch/Member/due(_:)``), and
/// whoever takes one runs its transition and its drain; the driver thread only sorts the wake's due work
/// (``runDue(now:)``). When the queue takes the mass expiry in bulk, it hands each such timer over as it releases it
/// (``handOff(_:)``), so that pool workers start on the first batches while the driver thread still takes the rest.
///
/// Each driver thread owns one context, found through a thread-specific key; only that thread touches it. That is also
/// why its mutable properties skip the runtime's exclusivity check (`@exclusivity(unchecked)`): no two accesses can
/// overlap, and the checks cost a call each, about 820 instructions of a tick's 5,200 on a driver thread
/// (`Benchmarks/Scripts/tick-instructions.sh`).
final class DriverContext: @unchecked Sendable {
    // @unchecked: a context is created by its driver thread and touched only by that thread.

    /// Which of the clock's driver threads owns this context (0 or 1).
    let index: Int
    /// The due work of one wake, reused from wake to wake so that a wake allocates no array: as taken, one run per
    /// shard that had due work; after ``mergeDueRuns()``, in the order it runs.
    @exclusivity(unchecked) var due: [(UInt64, CompactDeadlineQueue.Work)] = []
    /// The deadline (nanoseconds since the clock's origin) of each element of ``due``, as taken.
    @exclusivity(unchecked) var dueDeadlines: [Int64] = []
    /// Where each shard's run of ``due`` starts, as taken (only shards that had due work).
    @exclusivity(unchecked) var runStarts: [Int] = []
    /// Where ``mergeDueRuns()`` builds the merged order; swapped with ``due``, so both keep their capacity.
    @exclusivity(unchecked) private var merged: [(UInt64, CompactDeadlineQueue.Work)] = []
    /// The next element of each run while the runs are merged.
    @exclusivity(unchecked) private var cursors: [Int] = []
    /// Whether the thread is running due work and can take a mailbox to drain after it.
    @exclusivity(unchecked) var acceptsMailbox = false
    /// The mailbox taken in this wake, while it is the only one (the second moves it into ``gathering``).
    @exclusivity(unchecked) var mailbox: (any DeliveryLane)?
    /// The batch this wake's members go in once there are two or more: mailboxes, and in a mass expiry the due
    /// default-delivery timers; handed to the pool every ``flushCount`` members, and the last one run with the pool
    /// after the due work.
    @exclusivity(unchecked) private var gathering: LaneBatch?
    /// The batch of the last wake that had several members and ran it to the end, filled again when no pool worker
    /// still runs it.
    @exclusivity(unchecked) private var batch: LaneBatch?

    init(index: Int) {
        self.index = index
    }

    /// Runs ``due`` in order, each action's work moved out of the list before it runs, so that the reference it holds
    /// (a timer's) is released as soon as it ran, while this thread still has the object in its cache, instead of all
    /// together at the end, after pool workers have taken the timers over (mass expiry). Leaves ``due`` empty, with
    /// its capacity kept.
    func runDue(now: TimerInstant) {
        var list: [(UInt64, CompactDeadlineQueue.Work)] = []
        // A local array: no exclusivity check of the class's property per action.
        swap(&list, &due)
        list.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            // An index loop: iterating the buffer generically would box each element in unoptimized builds.
            var index = 0
            // A mass expiry: the default-delivery timers' transitions go to the pool with their drains (see
            // `LaneBatch.Member.due`), so that this thread reads none of their memory and hands over no mailbox.
            let toPool = buffer.count >= Self.flushCount
            while index < buffer.count {
                let (_, work) = (base + index).move()
                // A closure with no context in the moved-out place: destroying it later costs no reference count.
                (base + index).initialize(to: (0, .action(Self.nothing)))
                // A due default-delivery timer is moved whole into the batch, with its address for the takers'
                // prefetch: no reference count of the timer is touched here (a cache miss per timer on this thread).
                if toPool, let address = work.pooledTimerAddress {
                    gather(.due(consume work), address: address)
                } else {
                    work.run(now: now)
                }
                index += 1
            }
        }
        list.clearKeepingCapacity()
        swap(&list, &due)
    }

    /// What fills the places of ``due`` that ``runDue(now:)`` moved work out of.
    private static let nothing: CompactDeadlineQueue.Action = {}

    /// Puts ``due`` in the order it runs: by deadline, and among equal deadlines by id, which is scheduling order
    /// (see ``ClockDriver``). Each run is in that order already (a shard's queue pops by deadline, FIFO among equal
    /// deadlines, and a shard's ids increase in its insertion order but for actions scheduled at the same time on
    /// two threads, whose order is not defined), so this merges the runs: O(n · runs), and runs are at most the
    /// clock's shards. With one run it only clears the bookkeeping. Allocates nothing once the buffers have grown to
    /// the most actions due in one wake.
    func mergeDueRuns() {
        defer {
            dueDeadlines.clearKeepingCapacity()
            runStarts.clearKeepingCapacity()
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
    /// due work, every further one to run in one batch with it (see ``runTaken(on:standsBy:)``).
    ///
    /// - Returns: `false` when the thread is not running due work (the caller submits the lane itself).
    func take(_ lane: any DeliveryLane) -> Bool {
        guard acceptsMailbox else { return false }
        if mailbox == nil && gathering == nil {
            mailbox = lane
        } else {
            gather(.lane(lane))
        }
        return true
    }

    /// How many members a wake hands to the pool as one batch while its due work still runs: when that many timers are
    /// due at once, pool workers start on them meanwhile instead of waiting for the last due action (mass expiry).
    static let flushCount = 256

    /// Adds `member` to this wake's batch (after the lone mailbox, if one was taken), handing the batch to the pool once
    /// it holds ``flushCount`` members.
    ///
    /// - Parameter underShardLock: Whether the calling thread holds a shard's lock (``handOff(_:)``): a full batch is
    ///   then handed to the pool without arming its check for stuck workers, which schedules on ``SystemScheduler``
    ///   and would take a shard's lock; the wake arms it after letting go (``stuckCheckPending``).
    @inline(__always)
    private func gather(
        _ member: consuming LaneBatch.Member, address: UnsafeRawPointer? = nil, underShardLock: Bool = false
    ) {
        if gathering == nil { startGathering() }
        // `gathering` holds the batch for the call: no retain and release of it per member.
        var pending = Optional(member)
        let full = Unmanaged.passUnretained(gathering.unsafelyUnwrapped)._withUnsafeGuaranteedRef { batch in
            batch.append(pending.take().unsafelyUnwrapped, address: address)
            return batch.count == Self.flushCount
        }
        if full { flush(to: .shared, armsCheck: !underShardLock) }
    }

    /// Makes ``gathering`` a batch, empty but for the lone mailbox taken before, if one was: the last wake's batch if
    /// no pool worker runs it any more, else a new one.
    private func startGathering() {
        let batch: LaneBatch
        if let reusable = self.batch, reusable.isReusable {
            reusable.reset()
            batch = reusable
        } else {
            // The last batch still has a worker in it (finishing its last member), or went to the pool full: leave it
            // to the pool. The new one holds a full batch without growing (a mass expiry makes one per `flushCount`
            // members; growing from a smaller size copied each twice).
            batch = DeliveryPool.shared.takeSpentBatch() ?? LaneBatch(capacity: Self.flushCount)
            self.batch = batch
        }
        batch.now = wakeNow
        gathering = batch
        if let first = mailbox {
            mailbox = nil
            batch.append(.lane(first))
        }
    }

    /// The clock's reading of the wake running now (set by the wake before it takes due work), for the batches it
    /// gathers.
    @exclusivity(unchecked) var wakeNow = TimerInstant(offset: .zero)

    /// Whether a batch handed to the pool under a shard's lock left the pool's check for stuck workers to be armed
    /// (see ``handOff(_:)``); the wake arms it once it let go of the lock.
    @exclusivity(unchecked) var stuckCheckPending = false

    /// Takes a mass expiry's due default-delivery timer from its shard's queue as the queue releases it (under the
    /// shard's lock, ``CompactDeadlineQueue/popDue(now:into:deadlines:handOff:)``) into this wake's batch, which goes to
    /// the pool every ``flushCount`` members: pool workers start on the first timers while this thread still takes the
    /// rest, instead of after the last. Set ``wakeNow`` first.
    func handOff(_ work: consuming CompactDeadlineQueue.Work) {
        let address = work.pooledTimerAddress
        gather(.due(consume work), address: address, underShardLock: true)
    }

    /// Hands the gathered batch to `pool` as a batch of its own, waking or starting one worker for it (a worker that
    /// finds it exhausted takes it out of the ring); when none is free, the pool's check for stuck workers is armed, as
    /// for any lane that waits. The next member starts a new batch: a batch is allocated per ``flushCount`` members,
    /// only when more than that many are due in one wake. With `armsCheck` `false` (under a shard's lock), the check is
    /// left to ``stuckCheckPending``.
    func flush(to pool: DeliveryPool, armsCheck: Bool = true) {
        guard let full = gathering else { return }
        gathering = nil
        // The pool and its workers own it from here: the context will not refill it, and the pool keeps it for reuse
        // once it is spent.
        if full === batch { batch = nil }
        full.isHandedOver = true
        if pool.submit(batch: full, helpers: 1, armsCheck: armsCheck) { stuckCheckPending = true }
    }

    /// The lanes taken after the first and not handed to the pool yet, in order (for tests).
    var deferredLanes: [any DeliveryLane] { gathering?.lanes ?? [] }

    /// The members gathered and not handed to the pool yet (for stall reports).
    var gatheredCount: Int { gathering?.count ?? 0 }

    /// Runs the lanes taken in this wake, in the order they were taken: a lone one on this thread; several as one
    /// ``LaneBatch`` submitted to `pool` and run by this thread with the workers it wakes (one per
    /// ``DeliveryPool/lanesPerHelper`` lanes). Returns once every lane was taken (some may still run on workers).
    ///
    /// - Parameter standsBy: Whether the clock's other thread still stands by to take over waiting. When it does not
    ///   (it took over already, while the due work ran long, and will not call in a pool worker again), a worker is
    ///   called in for the batch at once, so that a handler that blocks this thread cannot hold the batch's others.
    func runTaken(on pool: DeliveryPool, standsBy: () -> Bool = { true }) {
        guard let batch = gathering else {
            guard let first = mailbox else { return }
            mailbox = nil
            first.runDeliveries()
            return
        }
        gathering = nil
        pool.submit(batch: batch, helpers: batch.count / DeliveryPool.lanesPerHelper)
        // After the submission: a take-over from now on finds the batch in the ring and calls a worker in itself.
        if !standsBy() { pool.serveWaiting() }
        batch.run()
        pool.finish(batch)
    }
}

extension CompactDeadlineQueue.Work {
    /// The object address of the default-delivery timer this work wakes (``ScheduledTargetReference/pooledTimer(_:)``),
    /// for a prefetch; `nil` for any other work. Read from a borrowed work: no reference count of the timer.
    var pooledTimerAddress: UnsafeRawPointer? {
        guard case .target(.pooledTimer(let timer), _) = self else { return nil }
        return UnsafeRawPointer(Unmanaged.passUnretained(timer).toOpaque())
    }
}

extension Array {
    /// Empties the array and keeps its capacity, as `removeAll(keepingCapacity: true)` does, without that call's
    /// general path (a `replaceSubrange` whose element destruction goes through the type's value witnesses) when the
    /// array is empty or holds a few elements: a wake's usual case, one due action. Not thread-safe (a mutation).
    @inline(__always)
    mutating func clearKeepingCapacity() {
        guard !isEmpty else { return }
        guard count <= 4 else { return removeAll(keepingCapacity: true) }
        repeat { _ = popLast() } while !isEmpty
    }
}
