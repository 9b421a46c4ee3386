public import Dispatch
import Synchronization
import TempoLocks

/// The scheduler that runs timers on the machine's real clocks.
///
/// Each ``TimerClock`` gets one driver: a dedicated thread that sleeps on a kernel timer (a `timerfd`
/// on Linux, with 1 ns timer slack) armed at the earliest pending deadline plus its leeway. When it
/// wakes, it takes every action whose deadline has passed, in deadline order (FIFO among equal
/// deadlines), releases its lock and runs them. Nothing wakes while no deadline is pending. The thread
/// of a clock starts the first time something is scheduled on that clock.
///
/// Actions run on the driver thread and must be short: Tempo's timers use them only to compute ticks
/// and hand them to their delivery queue.
///
/// Thread-safety: all methods may be called from any thread, including from inside an action.
public final class SystemScheduler: TimerScheduler {
    /// The process-wide scheduler. Every Tempo type uses it unless given another scheduler.
    public static let shared = SystemScheduler()

    private let drivers: [ClockDriver]
    private let nextID = Atomic<UInt64>(1)

    private init() {
        drivers = TimerClock.allCases.map { ClockDriver(clock: $0) }
    }

    private static func index(_ clock: TimerClock) -> Int {
        switch clock {
        case .monotonic: 0
        case .continuous: 1
        case .wall: 2
        }
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

    /// Schedules a call of `target` with `tag`, with no allocation once the clock's table has grown: how Tempo's
    /// own timers arm. Timing as in ``schedule(at:leeway:clock:_:)``.
    package func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        target: any ScheduledTarget,
        tag: UInt64
    ) -> ScheduledAction {
        schedule(at: deadline, leeway: leeway, clock: clock, work: .target(target, tag: tag))
    }

    private func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        work: DeadlineQueue.Work
    ) -> ScheduledAction {
        let index = Self.index(clock)
        let id = (nextID.wrappingAdd(1, ordering: .relaxed).oldValue << 2) | UInt64(index)
        let slot = drivers[index].insert(id: id, deadline: deadline, leeway: leeway, work: work)
        return ScheduledAction(id: id, slot: slot)
    }

    /// Cancels a scheduled action; once this returns it does not start. Stale handles are ignored.
    public func cancel(_ action: ScheduledAction) {
        let index = Int(action.id & 3)
        guard index < drivers.count else { return }
        drivers[index].remove(id: action.id, slot: action.slot)
    }

    /// Submits `work` asynchronously to `queue`, or runs it at once on the calling thread for `nil`.
    public func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        if let queue {
            queue.async(execute: work)
        } else {
            work()
        }
    }

    /// The number of actions pending on `clock`, for diagnostics and tests.
    ///
    /// - Parameter clock: The clock whose actions to count.
    /// - Returns: Scheduled actions that have neither run nor been cancelled.
    public func pendingCount(on clock: TimerClock) -> Int {
        drivers[Self.index(clock)].pendingCount
    }
}

/// The deadlines of one clock and the alarm that wakes for them.
final class ClockDriver: Sendable {
    private struct State: ~Copyable {
        var queue = DeadlineQueue()
        var alarm: PlatformAlarm?
        var armedAt: TimerInstant?
        /// Set while the driver thread runs due actions: the alarm is re-armed once when they are done,
        /// instead of on every insert an action makes (a timer re-arming itself costs no syscall before
        /// its handler runs).
        var waking = false
    }

    let clock: TimerClock
    private let state = TempoMutex(State())
    /// The due actions of one wake, reused from wake to wake so that a wake allocates no array. Touched only by
    /// ``wake()``, which only the driver thread calls, one call at a time.
    nonisolated(unsafe) private var due: [(UInt64, DeadlineQueue.Work)] = []

    init(clock: TimerClock) {
        self.clock = clock
    }

    var pendingCount: Int { state.withLock { $0.queue.count } }

    func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, work: DeadlineQueue.Work) -> UInt32 {
        state.withLock { state in
            let slot = state.queue.insert(id: id, deadline: deadline, leeway: leeway, work: work)
            if state.alarm == nil {
                state.alarm = PlatformAlarm(clock: clock) { [self] in wake() }
            }
            if !state.waking { rearmIfEarlier(&state) }
            return slot
        }
    }

    /// Removes an action. The kernel timer is left as it is: if it was armed for this action, the driver wakes
    /// once for nothing and re-arms for what is left, which costs less than a syscall on every cancel.
    func remove(id: UInt64, slot: UInt32) {
        // The work is released outside the lock: its captures may run deinitializers that call back in.
        let removed = state.withLock { state -> DeadlineQueue.Work? in
            state.queue.remove(id: id, slot: slot)
        }
        withExtendedLifetime(removed) {}
    }

    /// Arms the kernel timer when the next wake moved earlier than the armed one (or nothing is armed).
    private func rearmIfEarlier(_ state: inout State) {
        guard let wake = state.queue.wakeInstant() else { return }
        if let armed = state.armedAt, armed <= wake { return }
        state.armedAt = wake
        state.alarm?.arm(at: wake)
    }

    /// Arms the kernel timer for the next wake, or disarms it when nothing is pending.
    private func rearm(_ state: inout State) {
        let wake = state.queue.wakeInstant()
        state.armedAt = wake
        state.alarm?.arm(at: wake)
    }

    /// Called on the driver thread when the kernel timer fires (or the wall clock was set).
    private func wake() {
        state.withLock { state in
            state.queue.popDue(now: PlatformClock.now(clock), into: &due)
            state.waking = true
        }
        // An index loop: iterating the array generically would box each element in unoptimized builds.
        var index = 0
        while index < due.count {
            due[index].1.run()
            index += 1
        }
        due.removeAll(keepingCapacity: true)
        state.withLock { state in
            state.waking = false
            // Always re-arm: after a wall-clock change the timerfd reports ECANCELED until it is set again.
            rearm(&state)
        }
    }
}
