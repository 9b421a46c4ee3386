import Dispatch
import Synchronization
import TempoLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scheduler that runs timers on the machine's real clocks.
///
/// Each ``TimerClock`` gets one driver: a kernel timer (a `timerfd` on Linux, with 1 ns timer slack) armed at the
/// earliest pending deadline plus its leeway, and two threads that take turns waiting on it. When it fires, the
/// waiting thread takes every action whose deadline has passed, in deadline order (FIFO among equal deadlines),
/// releases its lock and runs them; the first timer with the default delivery may then run its handlers on that
/// thread too (see ``TimerDelivery/privateQueue``). If that work is still running 0.5 ms after the deadline, the
/// other thread takes over waiting, so slow work delays the clock's other deadlines by about 0.5 ms at most.
/// Nothing wakes while no deadline is pending. A clock's threads start the first time something is scheduled
/// on that clock. Scheduling, cancelling and running allocate nothing while the number of pending actions stays
/// within the chunks the clock's table has (Tempo's own timers are armed without a closure).
///
/// The table grows in chunks of 1,024 actions, about 36 bytes per action (one more 16-byte key for an action with
/// leeway), and gives chunks back from its end once they hold no pending action: after a burst of a million timers
/// has ended, the clock's table returns to what the remaining actions need, plus one chunk. A new action takes the
/// lowest free slot, so actions armed after (or re-armed during) the burst do not hold its chunks; one that was armed
/// during the burst and outlives it keeps its chunk until it ends.
///
/// Actions run on a driver thread and must be short: Tempo's timers use them only to compute ticks and hand them
/// to their delivery.
///
/// Thread-safety: all methods may be called from any thread, including from inside an action.
public final class SystemScheduler: TimerScheduler {
    /// The kernel timer a scheduler sleeps on.
    public enum Backend: String, Sendable, CaseIterable {
        /// A `timerfd` per clock, waited on by two threads that take turns (Linux only; the default there). The
        /// first default-delivery handler of a wake runs on the thread that woke, so it needs no second wakeup.
        case timerfd
        /// A `DispatchSourceTimer` per clock (the default on Apple platforms; selectable on Linux). Handlers of the
        /// default delivery always run on the delivery pool, after a second wakeup.
        case dispatch

        /// The platform's default: ``timerfd`` on Linux, ``dispatch`` elsewhere.
        public static var platformDefault: Backend {
            #if os(Linux)
            .timerfd
            #else
            .dispatch
            #endif
        }
    }

    /// The process-wide scheduler. Every Tempo type uses it unless given another scheduler.
    ///
    /// Its backend is ``Backend/platformDefault``, unless the environment variable `TEMPO_SCHEDULER_BACKEND` names
    /// another one (`timerfd` or `dispatch`) when the scheduler is first used: that is how CI runs the same suites
    /// on both backends. An unknown name, or `timerfd` where there is none, stops the process with a message.
    public static let shared: SystemScheduler = {
        guard let raw = getenv("TEMPO_SCHEDULER_BACKEND"), let name = String(validatingCString: raw) else {
            return SystemScheduler(backend: .platformDefault)
        }
        guard let backend = Backend(rawValue: name), backend.isAvailable else {
            let known = Backend.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")
            fatalError("TEMPO_SCHEDULER_BACKEND=\(name) is not a backend of this platform (\(known))")
        }
        return SystemScheduler(backend: backend)
    }()

    /// The kernel timer this scheduler sleeps on.
    public let backend: Backend
    private let drivers: [ClockDriver]

    /// Creates a scheduler of its own on `backend`, with its own driver threads. Most code uses ``shared``.
    ///
    /// - Parameter backend: The kernel timer to sleep on; ``Backend/timerfd`` exists on Linux only.
    /// - Precondition: `backend` is available on this platform (``Backend/platformDefault`` always is).
    public init(backend: Backend = .platformDefault) {
        precondition(backend.isAvailable, "the \(backend) backend does not exist on this platform")
        self.backend = backend
        drivers = TimerClock.allCases.map { ClockDriver(clock: $0, backend: backend) }
    }

    /// Reads the real clock: `clock_gettime` on the clock's kernel clock.
    ///
    /// - Parameter clock: The clock to read.
    /// - Returns: The clock's current instant.
    public func now(_ clock: TimerClock) -> TimerInstant {
        PlatformClock.now(clock)
    }

    /// Schedules `action` on the driver thread of `clock`; see ``TimerScheduler/schedule(at:leeway:clock:_:)``.
    ///
    /// - Complexity: O(log n) in the number of pending actions on that clock.
    public func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        schedule(at: deadline, leeway: leeway, clock: clock, work: .action(action))
    }

    /// Schedules a call of `target` with the returned action's id, with no allocation once the clock's table has
    /// grown: how Tempo's own timers arm. Timing as in ``schedule(at:leeway:clock:_:)``.
    ///
    /// The scheduler's lock is a leaf: no other lock is taken while it is held, so this may be called under the
    /// caller's own lock (a timer arms under its lock, so that it records the handle in the same critical section).
    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        target: ScheduledTargetReference
    ) -> ScheduledAction {
        drivers[clock.index].schedule(at: deadline, leeway: leeway, target: target)
    }

    /// Starts the threads that timers on `clocks` use now, rather than when the first timer is armed: each clock's
    /// driver threads (on the timerfd backend; the Dispatch backend makes its timer source) and the delivery pool's
    /// workers (one per processor, at least two).
    ///
    /// Without it, the first deadline scheduled on a clock starts that clock's threads, and the first tick delivered
    /// with the default delivery starts pool workers as they are needed: the first timer of a process pays for the
    /// threads' creation (allocations and start-up time), which a latency-sensitive app may rather pay at launch.
    /// Measured on Linux (`TickAllocationTests`, with `.ci/alloc-counter.c` preloaded): starting the first timer of
    /// a new scheduler made 19 allocations, 3 after `startThreads(for:)` (the clock's table); the threads allocate
    /// more as they start, on their own.
    /// Threads already started are left as they are; they never exit. Timing of timers is unchanged.
    ///
    /// Thread-safety: may be called from any thread, any number of times.
    ///
    /// - Parameter clocks: The clocks whose threads to start; all three by default.
    public func startThreads(for clocks: [TimerClock] = TimerClock.allCases) {
        for clock in clocks {
            drivers[clock.index].startThreads()
        }
        DeliveryPool.shared.startWorkers()
    }

    /// The driver of `clock`: what a ``TempoTimer`` on this scheduler keeps (it knows its clock and arms directly).
    func driver(for clock: TimerClock) -> ClockDriver {
        drivers[clock.index]
    }

    private func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        work: CompactDeadlineQueue.Work
    ) -> ScheduledAction {
        drivers[clock.index].schedule(at: deadline, leeway: leeway, work: work)
    }

    /// Cancels a scheduled action; once this returns it does not start. Stale handles are ignored.
    public func cancel(_ action: ScheduledAction) {
        let index = Int(action.id & 3)
        guard index < drivers.count else { return }
        drivers[index].remove(id: action.id, slot: action.slot)
    }

    /// The number of actions pending on `clock`, for diagnostics and tests.
    ///
    /// - Parameter clock: The clock whose actions to count.
    /// - Returns: Scheduled actions that have neither run nor been cancelled.
    public func pendingCount(on clock: TimerClock) -> Int {
        drivers[clock.index].pendingCount
    }
}

/// The deadlines of one clock and the alarm that wakes for them.
///
/// Lock order: the driver's lock is a leaf. Nothing takes another lock while holding it (due work runs, and removed
/// work is released, after it is unlocked; arming the kernel timer is a system call), so a ``TempoTimer`` and a
/// ``TimingWheel`` may schedule and cancel while holding their own lock.
final class ClockDriver: Sendable {
    private struct State: ~Copyable {
        var queue = CompactDeadlineQueue()
        var alarm: (any SchedulerAlarm)?
        /// The wake the kernel timer is armed for, in nanoseconds since the clock's origin.
        var armedAt: Int64?
        /// Set while the driver thread runs due actions: the alarm is re-armed once when they are done,
        /// instead of on every insert an action makes (a timer re-arming itself costs no syscall before
        /// its handler runs).
        var waking = false
    }

    let clock: TimerClock
    private let backend: SystemScheduler.Backend
    private let state = TempoMutex(State())
    /// Numbers the clock's actions; an action's id is its number with the clock's index in the two low bits, so ids
    /// are unique across the scheduler's clocks and increasing on each.
    private let nextNumber = Atomic<UInt64>(1)

    init(clock: TimerClock, backend: SystemScheduler.Backend) {
        self.clock = clock
        self.backend = backend
    }

    private func makeAlarm() -> any SchedulerAlarm {
        switch backend {
        case .dispatch:
            return DispatchAlarm(clock: clock) { [self] context in wake(context) }
        case .timerfd:
            #if os(Linux)
            return TimerfdAlarm(
                clock: clock,
                onWake: { [self] context in wake(context) },
                onTakeover: { [self] in takeOver() }
            )
            #else
            preconditionFailure("no timerfd on this platform")
            #endif
        }
    }

    var pendingCount: Int { state.withLock { $0.queue.count } }

    /// Schedules a call of `target` with the new action's id; see ``SystemScheduler/schedule(at:leeway:clock:target:)``.
    func schedule(at deadline: TimerInstant, leeway: Duration, target: ScheduledTargetReference) -> ScheduledAction {
        let id = makeID()
        let slot = insert(id: id, deadline: deadline, leeway: leeway, work: .target(target, id: id))
        return ScheduledAction(id: id, slot: slot)
    }

    /// Schedules `work`.
    func schedule(at deadline: TimerInstant, leeway: Duration, work: CompactDeadlineQueue.Work) -> ScheduledAction {
        let id = makeID()
        let slot = insert(id: id, deadline: deadline, leeway: leeway, work: work)
        return ScheduledAction(id: id, slot: slot)
    }

    /// Creates the alarm, and so starts the clock's threads, unless a deadline did already.
    func startThreads() {
        state.withLock { state in
            if state.alarm == nil { state.alarm = makeAlarm() }
        }
    }

    /// Whether the alarm (and so its threads) exists yet.
    var hasStartedThreads: Bool {
        state.withLock { $0.alarm != nil }
    }

    private func makeID() -> UInt64 {
        (nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue << 2) | UInt64(clock.index)
    }

    private func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, work: CompactDeadlineQueue.Work) -> UInt32
    {
        state.withLock { state in
            let slot = state.queue.insert(id: id, deadline: deadline, leeway: leeway, work: work)
            if state.alarm == nil {
                state.alarm = makeAlarm()
            }
            if !state.waking { rearmIfEarlier(&state) }
            return slot
        }
    }

    /// Removes an action. The kernel timer is left as it is: if it was armed for this action, the driver wakes
    /// once for nothing and re-arms for what is left, which costs less than a syscall on every cancel.
    func remove(id: UInt64, slot: UInt32) {
        // The work is released outside the lock: its captures may run deinitializers that call back in.
        let removed = state.withLock { state -> CompactDeadlineQueue.Work? in
            state.queue.remove(id: id, slot: slot)
        }
        withExtendedLifetime(removed) {}
    }

    /// Arms the kernel timer when the next wake moved earlier than the armed one (or nothing is armed).
    private func rearmIfEarlier(_ state: inout State) {
        guard let wake = state.queue.wakeNanoseconds() else { return }
        if let armed = state.armedAt, armed <= wake { return }
        state.armedAt = wake
        state.alarm?.arm(at: TimerInstant(offset: .nanoseconds(wake)))
    }

    /// Arms the kernel timer for the next wake, or disarms it when nothing is pending.
    private func rearm(_ state: inout State) {
        let wake = state.queue.wakeNanoseconds()
        state.armedAt = wake
        state.alarm?.arm(at: wake.map { TimerInstant(offset: .nanoseconds($0)) })
    }

    /// Called on a driver thread when the kernel timer fires (or the wall clock was set).
    ///
    /// Runs the due work under the alarm's guard, then drains the one mailbox a timer with the default delivery may
    /// have left in `context` (see ``DriverContext``), so that its handlers run without a second thread wakeup.
    private func wake(_ context: DriverContext) {
        let alarm = state.withLock { state in
            state.queue.popDue(now: PlatformClock.now(clock), into: &context.due)
            state.waking = true
            return state.alarm
        }
        guard let alarm else { return }
        alarm.guarded(context) {
            context.acceptsMailbox = alarm.canRunDeliveriesOnWaiter
            if TimerInstruments.isActive {
                runDueInstrumented(context)  // ClockDriver+Instruments.swift: times each action, reports stalls
            } else {
                // An index loop: iterating the array generically would box each element in unoptimized builds.
                var index = 0
                while index < context.due.count {
                    context.due[index].1.run()
                    index += 1
                }
            }
            context.acceptsMailbox = false
            context.due.removeAll(keepingCapacity: true)
            // The wake's other default-delivery mailboxes, in one batch: each idle pool worker is woken once.
            context.submitDeferred(to: .shared)
            // Before re-arming, so that no system call comes between the deadline and the handlers. Meanwhile the
            // deputy's timer is still set for this wake's deadline + the hand-over delay: a handler running longer
            // than that hands the waiting over to the other thread.
            if let mailbox = context.mailbox {
                context.mailbox = nil
                mailbox.runDeliveries()
            }
            state.withLock { state in
                state.waking = false
                // Always re-arm: after a wall-clock change the timerfd reports ECANCELED until it is set again.
                rearm(&state)
            }
        }
    }

    /// Called on the clock's other thread once it took over waiting because guarded work ran long: deadlines added
    /// meanwhile did not re-arm the kernel timer (``State/waking`` was set), so arm it now.
    private func takeOver() {
        state.withLock { state in
            state.waking = false
            rearm(&state)
        }
    }
}

extension SystemScheduler.Backend {
    /// Whether this platform has the backend.
    var isAvailable: Bool {
        #if os(Linux)
        true
        #else
        self == .dispatch
        #endif
    }
}
