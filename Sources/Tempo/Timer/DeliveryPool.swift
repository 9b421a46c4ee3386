import Dispatch
import Synchronization
import TempoLocks

/// Something the delivery pool runs: a timer's mailbox, drained until it is empty.
package protocol DeliveryLane: AnyObject, Sendable {
    /// Runs the lane's queued deliveries on a pool thread.
    func runDeliveries()
}

/// The threads behind ``TimerDelivery/privateQueue``: a fixed set of workers shared by every timer of
/// ``SystemScheduler``.
///
/// A timer whose mailbox has work is put in a first-in-first-out ring; an idle worker takes it and drains it. The
/// pool has one worker per processor (at least two), started the first time they are needed, so thousands of
/// timers due together run on that many threads, and a submission allocates nothing once the ring has grown to
/// the peak number of timers waiting at once. Each timer drains its own mailbox one delivery at a time, so its
/// handler runs never overlap and keep their order; runs of different timers may run in parallel.
///
/// A handler that blocks holds one worker for as long as it blocks. When a mailbox is waiting and every worker has
/// been running one delivery for ``stuckAfter`` or longer, the pool starts one more worker (checked every quarter of
/// ``stuckAfter`` by a one-shot on ``SystemScheduler`` that is armed only while mailboxes wait for a busy pool; a
/// worker running a batch counts the members it begins, and a count that has not moved for ``stuckAfter`` is one
/// delivery running that long), up to ``extraWorkerLimit`` more than the baseline, and keeps them. So blocked
/// handlers delay other timers by 1 to 1.5 ``stuckAfter``, not forever; blocking work is still better run on a queue
/// of your own (``TimerDelivery/queue(_:)``).
///
/// Thread-safety: ``submit(_:)`` may be called from any thread.
final class DeliveryPool: Sendable {
    /// The pool every timer of ``SystemScheduler`` with the default delivery uses.
    static let shared = DeliveryPool(workers: max(2, DriverThread.activeProcessorCount))

    /// The queue the default delivery uses on schedulers other than ``SystemScheduler`` (a test scheduler decides
    /// itself how it runs delivery work, through `DeliveringScheduler.execute(on:_:)`).
    static let queue = DispatchQueue(label: "tempo.delivery", attributes: .concurrent)

    /// How long every worker must have been busy with one delivery before the pool starts another.
    static let stuckAfter = Duration.milliseconds(50)
    /// How many workers the pool may start beyond its baseline when they are all stuck.
    static let extraWorkerLimit = 64

    /// What the ring holds: one lane, or a batch of lanes that workers run together (see ``LaneBatch``).
    private enum Entry {
        case lane(any DeliveryLane)
        case batch(LaneBatch)
    }

    /// How many lanes of a batch make it worth waking one more worker for it (the driver thread that submits a
    /// batch runs it too): a wake's batch of fewer lanes wakes nobody, so timers with leeway that fall due together
    /// cost one thread wakeup, the driver's.
    static let lanesPerHelper = 128

    private struct State: ~Copyable {
        var ring: [Entry?] = []
        var head = 0
        var count = 0
        var idle = 0
        var started = 0
        /// The started workers, by index.
        var workers: [Worker] = []
        var checkScheduled = false
        /// Workers woken or started for a lane that have not taken one yet: as many lanes of the ring have a worker
        /// on its way (for stall reports).
        var coming = 0
        /// Lanes queued, ever, that found no idle worker and no worker to start: each waited for a busy one (for
        /// stall reports).
        var waited = 0
        /// Batches handed over for good (``LaneBatch/isHandedOver``) that left the ring, oldest first, for a driver
        /// thread to fill again (``takeSpentBatch()``); at most ``spentBatchLimit``.
        var spent: [LaneBatch] = []
    }

    /// How many spent batches the pool keeps for reuse: a mass expiry makes one per `DriverContext.flushCount`
    /// members, and without reuse each was allocated, and its memory page-faulted in, again in every mass expiry
    /// (a profile of the driver thread put a tenth of its time in page faults). 64 batches of 256 members hold
    /// about 640 KiB.
    static let spentBatchLimit = 64

    /// Keeps `batch`, which just left the ring, for reuse if it was handed over for good and there is room.
    private static func keepSpent(_ batch: LaneBatch, _ state: inout State) {
        guard batch.isHandedOver, state.spent.count < spentBatchLimit else { return }
        state.spent.append(batch)
    }

    /// A spent batch that no worker runs any more, empty and owned by the caller from here on, or `nil` if there is
    /// none. Takes the pool's lock.
    func takeSpentBatch() -> LaneBatch? {
        state.withLock { state -> LaneBatch? in
            // Oldest first: the likeliest to have no worker left in it.
            guard let index = state.spent.firstIndex(where: { $0.isReusable }) else { return nil }
            let batch = state.spent.remove(at: index)
            batch.isHandedOver = false
            batch.reset()
            return batch
        }
    }

    /// What the pool knows of one started worker, for the check for stuck workers.
    private struct Worker {
        /// When the worker took its current entry of the ring (`nil`: waiting).
        var busySince: TimerInstant?
        /// Its count of batch members begun, which it bumps with no lock and no clock reading (a long batch of short
        /// handlers is progress, not one stuck delivery).
        let progress = WorkerProgress()
        /// The count as the check last read it, and when the check first read that value: a worker is stuck once both
        /// its entry and its count are ``DeliveryPool/stuckAfter`` old.
        var seenProgress = 0
        var seenProgressAt: TimerInstant
    }

    /// The number of workers the pool starts before any is stuck (its baseline).
    let workerLimit: Int
    private let state = TempoMutex(State())
    private let wakeups = DispatchSemaphore(value: 0)

    init(workers: Int) {
        workerLimit = workers
    }

    /// What a stall report counts from: the lanes that waited for a busy worker so far, and those waiting now.
    struct WaitMark: Sendable {
        let waited: Int
        let waiting: Int
    }

    /// The mark a handler run on a worker takes before it starts, for ``lanesDelayed(since:)`` when it returns: a
    /// batch in the ring counts the lanes nobody took yet.
    var waitMark: WaitMark {
        state.withLock { state in
            WaitMark(waited: state.waited, waiting: max(0, Self.queuedLanes(state) - state.coming))
        }
    }

    /// The number of lanes in the ring, a batch counting the lanes nobody took yet (for tests).
    var waitingCount: Int { state.withLock { Self.queuedLanes($0) } }

    private static func queuedLanes(_ state: borrowing State) -> Int {
        var queued = 0
        var offset = 0
        while offset < state.count {
            switch state.ring[(state.head + offset) % state.ring.count] {
            case .batch(let batch): queued += batch.remaining
            case .lane, nil: queued += 1
            }
            offset += 1
        }
        return queued
    }

    /// How many lanes waited for a worker while the run that took `mark` held one: those already waiting then
    /// (no worker on its way for them), and every lane queued since that found no worker free, whether or not it is
    /// still waiting now (a worker started for stuck ones may have run it meanwhile).
    func lanesDelayed(since mark: WaitMark) -> Int {
        state.withLock { mark.waiting + $0.waited - mark.waited }
    }

    /// Queues `lane` to be run by a worker.
    ///
    /// - Complexity: O(1), amortized over the ring's growth; no allocation once it has grown.
    func submit(_ lane: any DeliveryLane) {
        let (wake, start, check) = state.withLock { state -> (Bool, Int?, Bool) in
            append(.lane(lane), to: &state)
            if state.idle > 0 {
                state.idle -= 1
                state.coming += 1
                return (true, nil, false)
            }
            if state.started < workerLimit {
                return (false, startWorker(&state), false)
            }
            state.waited += 1
            guard !state.checkScheduled else { return (false, nil, false) }
            state.checkScheduled = true
            return (false, nil, true)
        }
        if wake { wakeups.signal() }
        if let start { launch(worker: start) }
        if check { armStuckCheck() }
    }

    /// Queues `lanes` in order, under one lock, and wakes (or starts) at most one worker per lane: what a driver
    /// thread hands over for the timers due in one wake.
    ///
    /// - Complexity: O(lanes), amortized over the ring's growth; no allocation once it has grown.
    func submit(contentsOf lanes: [any DeliveryLane]) {
        let (wake, starts, check) = state.withLock { state -> (Int, Range<Int>, Bool) in
            var index = 0
            while index < lanes.count {
                append(.lane(lanes[index]), to: &state)
                index += 1
            }
            let wake = min(state.idle, lanes.count)
            state.idle -= wake
            state.coming += wake
            let first = state.started
            while state.started < workerLimit, state.started - first < lanes.count - wake {
                _ = startWorker(&state)
            }
            let starts = first..<state.started
            // As `submit(_:)` does for each lane that finds no idle worker and none to start.
            let unserved = lanes.count - wake - starts.count
            state.waited += unserved
            guard unserved > 0, !state.checkScheduled else { return (wake, starts, false) }
            state.checkScheduled = true
            return (wake, starts, true)
        }
        for _ in 0..<wake { wakeups.signal() }
        for index in starts { launch(worker: index) }
        if check { armStuckCheck() }
    }

    /// Queues `batch`, which the calling thread runs too, and wakes (or starts) up to `helpers` workers to join it.
    ///
    /// With no helper nothing is woken: the caller runs the batch alone unless it is held up, and then
    /// ``serveWaiting()`` brings a worker (the clock's other driver thread calls it when it takes over waiting).
    /// A caller that runs the batch calls ``finish(_:)`` once it ran out of lanes to take; a batch nobody finishes is
    /// taken out of the ring by the worker that finds it exhausted.
    ///
    /// - Returns: Whether the check for stuck workers is to be armed and `armsCheck` was `false` (a caller that holds
    ///   a scheduler's lock arms it with ``armStuckCheck()`` once it let go: arming schedules on ``SystemScheduler``).
    @discardableResult
    func submit(batch: LaneBatch, helpers: Int, armsCheck: Bool = true) -> Bool {
        let (wake, starts, check) = state.withLock { state -> (Int, Range<Int>, Bool) in
            append(.batch(batch), to: &state)
            batch.inRing = true
            let wake = min(state.idle, helpers)
            state.idle -= wake
            state.coming += wake
            let first = state.started
            while state.started < workerLimit, state.started - first < helpers - wake {
                _ = startWorker(&state)
            }
            let starts = first..<state.started
            let unserved = helpers - wake - starts.count
            guard unserved > 0, !state.checkScheduled else { return (wake, starts, false) }
            state.checkScheduled = true
            return (wake, starts, true)
        }
        for _ in 0..<wake { wakeups.signal() }
        for index in starts { launch(worker: index) }
        if check && armsCheck { armStuckCheck() }
        return check && !armsCheck
    }

    /// Takes `batch` out of the ring if no worker did yet: its submitter ran out of lanes to take. Workers that joined
    /// it may still be running their last lane; the batch is reusable once they left (``LaneBatch/isReusable``).
    func finish(_ batch: LaneBatch) {
        state.withLock { state in
            guard batch.inRing else { return }
            batch.inRing = false
            // Usually the last entry, or the only one: look from the tail.
            var offset = state.count - 1
            while offset >= 0 {
                let index = (state.head + offset) % state.ring.count
                if case .batch(let other) = state.ring[index], other === batch {
                    // Close the gap: move the entries after it one place toward the head.
                    var moving = offset
                    while moving + 1 < state.count {
                        state.ring[(state.head + moving) % state.ring.count] =
                            state.ring[(state.head + moving + 1) % state.ring.count]
                        moving += 1
                    }
                    state.ring[(state.head + state.count - 1) % state.ring.count] = nil
                    state.count -= 1
                    return
                }
                offset -= 1
            }
        }
    }

    /// Wakes or starts one worker if lanes wait and none is idle-woken for them, or arms the check for stuck workers
    /// when none can start: called when the thread that runs a batch was held up (its driver's other thread took over
    /// waiting for deadlines), so that the batch's other lanes do not wait for it.
    func serveWaiting() {
        let (wake, start, check) = state.withLock { state -> (Bool, Int?, Bool) in
            guard state.count > 0 else { return (false, nil, false) }
            if state.idle > 0 {
                state.idle -= 1
                state.coming += 1
                return (true, nil, false)
            }
            if state.started < workerLimit { return (false, startWorker(&state), false) }
            guard !state.checkScheduled else { return (false, nil, false) }
            state.checkScheduled = true
            return (false, nil, true)
        }
        if wake { wakeups.signal() }
        if let start { launch(worker: start) }
        if check { armStuckCheck() }
    }

    /// Starts the workers not started yet, up to the pool's size; they wait for deliveries.
    func startWorkers() {
        let range = state.withLock { state -> Range<Int> in
            let first = state.started
            while state.started < workerLimit { _ = startWorker(&state) }
            return first..<state.started
        }
        for index in range { launch(worker: index) }
    }

    /// The number of workers started.
    var startedCount: Int { state.withLock { $0.started } }

    /// The number of started workers waiting for a lane, none woken for one yet (for tests).
    var idleCount: Int { state.withLock { $0.idle } }

    private func startWorker(_ state: inout State) -> Int {
        state.started += 1
        state.coming += 1
        let now = PlatformClock.now(.monotonic)
        state.workers.append(Worker(busySince: now, seenProgressAt: now))
        return state.started - 1
    }

    private func launch(worker index: Int) {
        DriverThread.start(name: "tempo.delivery") { [self] in work(index: index) }
    }

    /// Arms the check for stuck workers, a quarter of ``stuckAfter`` ahead: a worker's progress is seen only at the
    /// checks, so a worker that blocks is found stuck between 1 and 1.5 ``stuckAfter`` after it blocked. Allocates (a
    /// closure), but only while mailboxes wait for a busy pool.
    /// ``submit(batch:helpers:armsCheck:)`` leaves it to a caller that holds a scheduler's lock.
    func armStuckCheck() {
        let scheduler = SystemScheduler.shared
        let deadline = scheduler.now(.monotonic) + Self.stuckAfter / 4
        _ = scheduler.schedule(at: deadline, leeway: .milliseconds(5), clock: .monotonic) { [self] in
            checkForStuckWorkers()
        }
    }

    /// Starts one more worker if mailboxes wait and every worker has been busy with one delivery for
    /// ``stuckAfter``; checks again later while mailboxes still wait.
    private func checkForStuckWorkers() {
        let now = PlatformClock.now(.monotonic)
        let (start, again) = state.withLock { state -> (Int?, Bool) in
            state.checkScheduled = false
            guard state.count > 0, state.idle == 0 else { return (nil, false) }
            var stuck = true
            var index = 0
            while index < state.workers.count {
                let count = state.workers[index].progress.count.load(ordering: .relaxed)
                if count != state.workers[index].seenProgress {
                    state.workers[index].seenProgress = count
                    state.workers[index].seenProgressAt = now
                }
                if let since = state.workers[index].busySince {
                    stuck = stuck && now - max(since, state.workers[index].seenProgressAt) >= Self.stuckAfter
                } else {
                    stuck = false
                }
                index += 1
            }
            let start = stuck && state.started < workerLimit + Self.extraWorkerLimit ? startWorker(&state) : nil
            state.checkScheduled = true
            return (start, true)
        }
        if let start { launch(worker: start) }
        if again { armStuckCheck() }
    }

    /// Puts `entry` at the ring's tail, growing the ring when it is full.
    private func append(_ entry: Entry, to state: inout State) {
        if state.count == state.ring.count { grow(&state) }
        state.ring[(state.head + state.count) % state.ring.count] = entry
        state.count += 1
    }

    /// Removes the entry at the ring's head.
    private func popHead(_ state: inout State) {
        state.ring[state.head] = nil
        state.head = (state.head + 1) % state.ring.count
        state.count -= 1
    }

    private func grow(_ state: inout State) {
        var ring = [Entry?](repeating: nil, count: max(16, state.ring.count * 2))
        for offset in 0..<state.count {
            ring[offset] = state.ring[(state.head + offset) % state.ring.count]
        }
        state.ring = ring
        state.head = 0
    }

    /// The first batch behind the ring's head that has lanes left and no worker in it, if any.
    private static func unjoinedBatch(after state: borrowing State) -> LaneBatch? {
        var offset = 1
        while offset < state.count {
            if case .batch(let batch) = state.ring[(state.head + offset) % state.ring.count], !batch.isExhausted,
                !batch.hasWorkers
            {
                return batch
            }
            offset += 1
        }
        return nil
    }

    /// A worker's loop: take the oldest lane and run it, or join the batch at the head, or wait for a submission.
    ///
    /// A batch stays at the head while it has lanes to take, so that a worker free meanwhile joins it (or a later
    /// batch that nobody runs, see ``unjoinedBatch(after:)``); the worker that finds it exhausted takes it out.
    private func work(index: Int) {
        // Whether this worker was started or woken for a lane and has not taken one yet (see `State.coming`).
        var arriving = true
        let progress = state.withLock { $0.workers[index].progress }
        while true {
            let now = PlatformClock.now(.monotonic)
            let entry = state.withLock { state -> Entry? in
                if arriving { state.coming -= 1 }
                while state.count > 0 {
                    state.workers[index].busySince = now
                    switch state.ring[state.head] {
                    case .batch(let batch):
                        if batch.isExhausted {
                            batch.inRing = false
                            popHead(&state)
                            Self.keepSpent(batch, &state)
                            continue
                        }
                        // Two workers in one batch contend for each of its lanes (its atomic index, and the cache
                        // lines of lanes the other just ran): while another worker runs this one, a later batch
                        // that nobody runs is taken instead (a mass expiry hands the pool a batch every
                        // `DriverContext.flushCount` lanes). It leaves the ring once it is exhausted and at the head.
                        let chosen = batch.hasWorkers ? Self.unjoinedBatch(after: state) ?? batch : batch
                        chosen.join()
                        return .batch(chosen)
                    case let entry:
                        popHead(&state)
                        return entry
                    }
                }
                state.workers[index].busySince = nil
                state.idle += 1
                return nil
            }
            arriving = false
            switch entry {
            case nil:
                wakeups.wait()
                arriving = true
            case .lane(let lane):
                lane.runDeliveries()
            case .batch(let batch):
                // This worker is the count's only writer: a load and a store, no read-modify-write per member.
                batch.run { progress.count.store(progress.count.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
                state.withLock { state in
                    if batch.inRing, state.count > 0, case .batch(let head) = state.ring[state.head], head === batch {
                        batch.inRing = false
                        popHead(&state)
                        Self.keepSpent(batch, &state)
                    }
                }
                batch.leave()
            }
        }
    }
}

/// A pool worker's count of batch members begun, on a cache line of its own (see `DeliveryPool.Worker.progress`).
final class WorkerProgress: Sendable {
    /// Written by its worker only (a load and a store), read by the pool's check for stuck workers.
    let count = Atomic<Int>(0)
    /// Keeps another object's fields off the count's cache line.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
}
