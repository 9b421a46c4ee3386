import Synchronization
import TempoLocks

/// The deadlines of one clock and the alarm that wakes for them.
///
/// **Shards.** The deadlines live in shards (``ClockShard``), one per processor (at least 2, at most
/// ``maximumShardCount``, a power of two), each a queue with its own lock: a thread schedules on the shard of its
/// ``ThreadOrdinal``, so threads that arm at the same time do not wait for one lock, nor write one queue. An
/// action's id is `stamp << 8 | shard << 2 | clock`: a cancel finds the shard from the id, and ids are unique on
/// the scheduler.
///
/// **Order.** An action's `stamp` is the monotonic clock's reading when it was scheduled, in nanoseconds since the
/// driver was made, raised where needed to one more than the shard's previous stamp (so stamps are unique and
/// increasing on a shard). The clock is read before the shard's lock is taken (a ``TempoTimer`` passes the reading it
/// made for its own transition, before taking its own lock, so that an arm reads the clock once) and it never goes
/// back, so an action
/// scheduled after another has returned from `schedule` (on any thread, synchronized with it) reads a later time
/// and gets the larger stamp: stamps, and so ids, increase in scheduling order on the clock, with no counter that
/// every arming thread would write. (Raising a stamp past the clock takes actions on one shard within the same
/// nanosecond: a few nanoseconds ahead at most, while the synchronization between two threads takes far longer.)
/// While actions were only ever scheduled on one shard of the clock (one arming thread, the common case), the clock
/// is not read: the stamp is the shard's previous one plus one, a count of its actions, which is below the clock's
/// reading in nanoseconds (an arm takes far more than a nanosecond). The first schedule on a second shard marks it
/// in ``usedShards`` before it returns, so every schedule that comes after it reads the clock.
/// A stamp has 56 bits, 2.28 years of nanoseconds: after that, ids wrap, and equal deadlines armed on either side
/// of the wrap may run out of order. A wake reads the clock once, takes every due action of each shard (each
/// shard's in deadline order, FIFO among equal deadlines), and runs them merged by deadline and, among equal
/// deadlines, by id: so equal deadlines run in the order they were scheduled, whichever shards hold them (see
/// ``DriverContext/mergeDueRuns()``).
///
/// **Arming the alarm.** ``armedAt`` holds the wake the kernel timer is armed for (`Int64.max`: none). A schedule
/// that moves its shard's earliest wake (``ClockShard/earliest``) earlier stores it there, then reads ``armedAt``;
/// if its wake is earlier, it takes the alarm lock and arms the kernel timer. Any other schedule touches no memory
/// another shard writes. A full re-arm (after a wake, and on a take-over) runs under the alarm lock: it clears
/// ``waking``, sets ``armedAt`` to `Int64.max`, then reads every shard's earliest wake and arms for the least. Both
/// sides store, then read the other's value, all sequentially consistent: so either the re-arm reads the schedule's
/// new earliest wake, or the schedule reads `Int64.max` (or the re-arm's new value) and arms itself under the alarm
/// lock, once the re-arm is done. No deadline is lost. A wake locks only the shards whose earliest wake has come.
///
/// Lock order: a shard's lock is a leaf, and so is the alarm lock but for the shard locks it takes while re-arming;
/// no work runs under either (due work runs, and removed work is released, after they are unlocked; arming the
/// kernel timer is a system call). So a ``TempoTimer`` and a ``TimingWheel`` may schedule and cancel while holding
/// their own lock.
final class ClockDriver: Sendable {
    /// The largest number of shards a clock gets, however many processors there are: a wake reads every shard.
    static let maximumShardCount = 16

    private struct AlarmState: ~Copyable {
        var alarm: (any SchedulerAlarm)?
    }

    let clock: TimerClock
    /// Whether the driver belongs to ``SystemScheduler/shared``, which is never released: a timer may then hold it
    /// without a reference count (``TempoTimer/Engine/sharedPool(_:)``).
    let livesForever: Bool
    private let backend: SystemScheduler.Backend
    /// Owns the shards.
    private let shards: [ClockShard]
    /// The same shards, unretained, in memory that nothing writes after `init`: arming and cancelling reach a shard
    /// with no reference count touched (threads arming at once on different shards would otherwise write the array
    /// buffer's and the shard's reference counts, shared cache lines, on every call).
    // nonisolated(unsafe): written once in `init`, then only read; freed in `deinit`, when no thread can use it.
    nonisolated(unsafe) private let shardTable: UnsafeMutablePointer<Unmanaged<ClockShard>>
    /// ``shards``'s count, a power of two.
    let shardCount: Int
    /// `shardCount - 1`: a thread's shard is its ordinal masked with it.
    private let shardMask: Int
    /// The monotonic clock's reading when the driver was made, in nanoseconds: the origin of the actions' stamps.
    private let origin = PlatformClock.nanoseconds(.monotonic)
    /// A bit per shard that an action was ever scheduled on; set once per shard, then only read.
    private let usedShards = Atomic<Int>(0)
    private let alarmState = TempoMutex(AlarmState())
    /// The wake the kernel timer is armed for, in nanoseconds since the clock's origin; `Int64.max` when none.
    private let armedAt = Atomic<Int64>(.max)
    /// Set while a driver thread runs due actions: the alarm is re-armed once when they are done, instead of on every
    /// insert an action makes (a timer re-arming itself costs no syscall before its handler runs).
    private let waking = Atomic<Bool>(false)

    init(
        clock: TimerClock, backend: SystemScheduler.Backend, shardCount: Int = ClockDriver.defaultShardCount,
        livesForever: Bool = false
    ) {
        precondition(
            (1...Self.maximumShardCount).contains(shardCount) && shardCount & (shardCount - 1) == 0,
            "a clock has 1, 2, 4, 8 or 16 shards")
        self.clock = clock
        self.livesForever = livesForever
        self.backend = backend
        shards = (0..<shardCount).map { _ in ClockShard() }
        self.shardCount = shardCount
        shardMask = shardCount - 1
        shardTable = .allocate(capacity: shardCount)
        for index in 0..<shardCount {
            (shardTable + index).initialize(to: Unmanaged.passUnretained(shards[index]))
        }
    }

    deinit {
        shardTable.deallocate()
    }

    /// Runs `body` with shard `index`, taking no reference on it (``shards`` keeps it alive).
    @inline(__always)
    private func withShard<Result>(_ index: Int, _ body: (ClockShard) -> Result) -> Result {
        shardTable[index]._withUnsafeGuaranteedRef(body)
    }

    /// One shard per processor, rounded up to a power of two: at least 2 and at most ``maximumShardCount``.
    static var defaultShardCount: Int {
        var count = 2
        while count < min(maximumShardCount, DriverThread.activeProcessorCount) { count *= 2 }
        return count
    }

    private func makeAlarm() -> any SchedulerAlarm {
        switch backend.kind {
        case .dispatch:
            return DispatchAlarm(clock: clock) { [self] context, alarm in wake(context, alarm) }
        case .timerfd:
            #if os(Linux)
            return TimerfdAlarm(
                clock: clock,
                onWake: { [self] context, alarm in wake(context, alarm) },
                onTakeover: { [self] in takeOver() }
            )
            #else
            preconditionFailure("no timerfd on this platform")
            #endif
        }
    }

    /// The number of pending actions on all shards.
    var pendingCount: Int {
        var count = 0
        var index = 0
        while index < shardCount {
            count += withShard(index) { shard in shard.state.withLock { $0.queue.count } }
            index += 1
        }
        return count
    }

    /// Creates the alarm, and so starts the clock's threads, unless a deadline did already.
    func startThreads() {
        alarmState.withLock { state in
            if state.alarm == nil { state.alarm = makeAlarm() }
        }
    }

    /// Whether the alarm (and so its threads) exists yet.
    var hasStartedThreads: Bool { alarmState.withLock { $0.alarm != nil } }

    /// Schedules a call of `target` with the new action's id; see ``SystemScheduler/schedule(at:leeway:clock:target:)``.
    ///
    /// - Parameter now: The monotonic clock's reading in nanoseconds, when the caller read it just before (and before
    ///   taking any lock it holds now), to serve as the stamp instead of a second reading; `nil` reads the clock.
    ///
    /// `target` is moved into the queue (the queue's row keeps the reference the caller made, with no retain and
    /// release of its own on the way: one arm of a timer costs one reference count of it).
    func schedule(
        at deadline: TimerInstant, leeway: Duration, target: consuming ScheduledTargetReference, now: Int64? = nil
    ) -> ScheduledAction {
        // Moved into the shard's critical section through an optional (a closure cannot consume what it captures).
        var pending = Optional(consume target)
        let due = CompactDeadlineQueue.Due(deadline: deadline, leeway: leeway)
        return insert(wake: due.wake, now: now) { queue, id in
            queue.insert(id: id, due: due, target: pending.take().unsafelyUnwrapped)
        }
    }

    /// Schedules `work`.
    func schedule(
        at deadline: TimerInstant, leeway: Duration, work: consuming CompactDeadlineQueue.Work
    ) -> ScheduledAction {
        var pending = Optional(consume work)
        let due = CompactDeadlineQueue.Due(deadline: deadline, leeway: leeway)
        return insert(wake: due.wake, now: nil) { queue, id in
            queue.insert(id: id, due: due, work: pending.take().unsafelyUnwrapped)
        }
    }

    /// Makes the id of an action that must run by `wake` (nanoseconds since the clock's origin) and runs `place` with
    /// it under its shard's lock, which puts the action in the shard's queue and returns its slot; then arms the
    /// kernel timer if the action is the earliest.
    ///
    /// The shard's earliest wake is lowered to the action's own when that is earlier, without reading the queue's
    /// (which could only be the same or later: ``ClockShard/earliest`` is never later than the queue's wake, and the
    /// new action's wake is the only one that changed).
    @inline(__always)
    private func insert(
        wake: Int64, now: Int64?, place: (inout CompactDeadlineQueue, UInt64) -> UInt32
    ) -> ScheduledAction {
        let index = ThreadOrdinal.current & shardMask
        let bit = 1 << index
        var used = usedShards.load(ordering: .acquiring)
        if used & bit == 0 {
            used = usedShards.bitwiseOr(bit, ordering: .acquiringAndReleasing).newValue
        }
        // One shard in use: its FIFO order is the scheduling order, and a count keeps ids increasing (see the type's
        // discussion); more than one: the clock orders them.
        // A reading the caller made just before is as good as one made here: it too precedes the shard's lock, and it
        // follows everything that happened before the caller's call began.
        let stamp = used == bit ? 0 : (now ?? PlatformClock.nanoseconds(.monotonic)) &- origin
        let (id, slot) = withShard(index) { shard in
            shard.state.withLock { state in
                // Unique on the shard, and in scheduling order on the clock (see the type's discussion).
                let stamp = max(stamp, state.lastStamp &+ 1)
                state.lastStamp = stamp
                // 56 bits of stamp, never 0: an id of 0 marks a free row of the queue.
                let bits = UInt64(truncatingIfNeeded: stamp) & (1 << 56 - 1)
                let id = max(bits, 1) << 8 | UInt64(index << 2 | clock.index)
                let slot = place(&state.queue, id)
                if wake < shard.earliest.load(ordering: .relaxed) {
                    shard.earliest.store(wake, ordering: .sequentiallyConsistent)
                }
                return (id, slot)
            }
        }
        // A wake later than the shard's earliest is later than `armedAt` too (which is never later than any shard's
        // earliest wake, but while a wake runs), so only an action that moved its shard's wake earlier can arm.
        if wake < armedAt.load(ordering: .sequentiallyConsistent) && !waking.load(ordering: .acquiring) {
            armIfEarlier(wake)
        }
        return ScheduledAction(id: id, slot: slot)
    }

    /// Removes an action. The kernel timer is left as it is: if it was armed for this action, the driver wakes
    /// once for nothing and re-arms for what is left, which costs less than a syscall on every cancel.
    func remove(id: UInt64, slot: UInt32) {
        let index = Int(truncatingIfNeeded: (id >> 2) & 63)
        guard index < shardCount else { return }
        // The work is released outside the lock: its captures may run deinitializers that call back in.
        let removed = withShard(index) { shard in
            shard.state.withLock { state -> CompactDeadlineQueue.Work? in state.queue.remove(id: id, slot: slot) }
        }
        withExtendedLifetime(removed) {}
    }

    /// Arms the kernel timer for `wake` if that is earlier than what it is armed for and no wake is running (which
    /// re-arms when it ends). Creates the alarm, and so starts its threads, the first time.
    private func armIfEarlier(_ wake: Int64) {
        alarmState.withLock { state in
            if state.alarm == nil { state.alarm = makeAlarm() }
            guard !waking.load(ordering: .acquiring), wake < armedAt.load(ordering: .acquiring) else { return }
            armedAt.store(wake, ordering: .releasing)
            state.alarm?.arm(atNanoseconds: wake)
        }
    }

    /// Arms the kernel timer for the earliest wake of all shards, or disarms it when nothing is pending; called under
    /// the alarm lock (see the type's discussion for why no concurrent schedule is lost).
    private func rearm(_ state: inout AlarmState) {
        waking.store(false, ordering: .releasing)
        armedAt.store(.max, ordering: .sequentiallyConsistent)
        var wake = Int64.max
        // An index loop: iterating the array generically allocates in unoptimized builds (one box per element, which
        // the allocation gate counts on every tick).
        var index = 0
        while index < shardCount {
            wake = min(wake, withShard(index) { $0.earliest.load(ordering: .sequentiallyConsistent) })
            index += 1
        }
        // Every other store to `armedAt` is made under the alarm lock, which this thread holds.
        armedAt.store(wake, ordering: .releasing)
        state.alarm?.arm(atNanoseconds: wake == .max ? nil : wake)
    }

    /// Called on a driver thread when the kernel timer fires (or the wall clock was set).
    ///
    /// Runs the due work under the alarm's guard, then drains the one mailbox a timer with the default delivery may
    /// have left in `context` (see ``DriverContext``), so that its handlers run without a second thread wakeup.
    ///
    /// `alarm` is the alarm that woke, passed in rather than read under the alarm lock: it is set once, under that
    /// lock, before it is first armed, so it cannot fire before ``AlarmState/alarm`` holds it.
    private func wake(_ context: DriverContext, _ alarm: any SchedulerAlarm) {
        waking.store(true, ordering: .releasing)
        let now = PlatformClock.now(clock)
        let nowNanoseconds = now.nanosecondsRoundedDown
        // A mass expiry's default-delivery timers go to the pool as their shard's queue releases them (unless
        // instruments time each due action): the pool starts on them while the rest is taken. They run in parallel, in
        // no order among themselves, as they would from the wake's batch; the rest runs in order below.
        context.wakeNow = now
        let handOff: ((consuming CompactDeadlineQueue.Work) -> Void)?
        if TimerInstruments.isActive {
            handOff = nil
        } else {
            handOff = { (work: consuming CompactDeadlineQueue.Work) in context.handOff(work) }
        }
        // An index loop: iterating the array generically would box each element in unoptimized builds.
        var index = 0
        while index < shardCount {
            let start = context.due.count
            withShard(index) { shard in
                // Only shards with due work are locked (their earliest wake is never later than the queue's).
                guard shard.earliest.load(ordering: .acquiring) <= nowNanoseconds else { return }
                shard.state.withLock { state in
                    state.queue.popDue(
                        now: now, into: &context.due, deadlines: &context.dueDeadlines, handOff: handOff)
                    shard.earliest.store(state.queue.wakeNanoseconds() ?? .max, ordering: .sequentiallyConsistent)
                }
            }
            if context.due.count > start { context.runStarts.append(start) }
            index += 1
        }
        // Outside the shards' locks: arming it schedules on this scheduler.
        if context.stuckCheckPending {
            context.stuckCheckPending = false
            DeliveryPool.shared.armStuckCheck()
        }
        context.mergeDueRuns()
        alarm.guarded(context) {
            context.acceptsMailbox = alarm.canRunDeliveriesOnWaiter
            if TimerInstruments.isActive {
                runDueInstrumented(context)  // ClockDriver+Instruments.swift: times each action, reports stalls
            } else {
                context.runDue(now: now)
            }
            context.acceptsMailbox = false
            context.due.clearKeepingCapacity()
            // The wake's default-delivery mailboxes: one drained here, several in one batch with the pool (see
            // DriverContext). Before re-arming, so that no system call comes between the deadline and the handlers.
            // Meanwhile the deputy's timer is still set for this wake's deadline + the hand-over delay: handlers
            // running longer than that hand the waiting over to the other thread.
            context.runTaken(on: .shared) { alarm.canRunDeliveriesOnWaiter }
            // Always re-arm: after a wall-clock change the timerfd reports ECANCELED until it is set again.
            alarmState.withLock { rearm(&$0) }
        }
    }

    /// Called on the clock's other thread once it took over waiting because guarded work ran long: deadlines added
    /// meanwhile did not re-arm the kernel timer (``waking`` was set), so arm it now.
    private func takeOver() {
        alarmState.withLock { rearm(&$0) }
        // The old waiter may be held by a handler in a batch of mailboxes: a pool worker takes the rest.
        DeliveryPool.shared.serveWaiting()
    }
}
