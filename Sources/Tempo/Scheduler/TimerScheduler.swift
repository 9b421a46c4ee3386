/// The source of time and deadlines that Tempo's timers run on.
///
/// Tempo ships two schedulers: ``SystemScheduler``, which reads the real clocks and sleeps a
/// dedicated thread per clock until the next deadline, and `VirtualClock` (in `TempoTesting`), whose
/// time moves only when a test advances it. Every Tempo type takes a scheduler, so the same code runs
/// on both.
///
/// A conforming type must:
/// - never run an action before its deadline on the given clock;
/// - run each action at most once, and never after ``cancel(_:)`` for it has returned;
/// - run actions outside its own locks, so an action may call back into the scheduler;
/// - run actions with equal deadlines in the order they were scheduled.
///
/// Delivery work (a timer's handlers on its ``TimerDelivery`` queue) runs asynchronously on that queue, or, for
/// ``TimerDelivery/immediate``, on the thread that ran the action.
///
/// All methods are safe to call from any thread.
public protocol TimerScheduler: Sendable {
    /// The current instant of `clock`.
    ///
    /// - Parameter clock: The clock to read.
    /// - Returns: The clock's current instant.
    func now(_ clock: TimerClock) -> TimerInstant

    /// Arranges for `action` to run once, no earlier than `deadline` on `clock`.
    ///
    /// The scheduler aims to run the action by `deadline + leeway`, and may batch it with other actions
    /// due in that window. A deadline in the past runs as soon as possible. The scheduler keeps `action`
    /// (and whatever it captures) alive until it has run or was cancelled.
    ///
    /// - Parameters:
    ///   - deadline: The earliest instant the action may run.
    ///   - clock: The clock `deadline` is measured on.
    ///   - leeway: How late past `deadline` the action may run to save wakeups; zero asks for punctuality.
    ///   - action: Work to run on the scheduler's thread; it must be short and must not block.
    /// - Returns: A handle for ``cancel(_:)``.
    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction

    /// Cancels a scheduled action: once this returns, the action does not start.
    ///
    /// Cancelling an action that already ran or was cancelled does nothing.
    ///
    /// - Parameter action: The handle ``schedule(at:leeway:clock:_:)`` returned.
    func cancel(_ action: ScheduledAction)
}

/// A handle to an action scheduled with ``TimerScheduler/schedule(at:leeway:clock:_:)``.
///
/// Handles are unique per scheduler for the life of the process; cancelling a stale handle is harmless.
public struct ScheduledAction: Hashable, Sendable {
    /// The scheduler's identifier for the action; increasing in scheduling order (on ``SystemScheduler``, among the
    /// actions of one clock).
    public let id: UInt64

    /// Where the scheduler keeps the action (its row in a reused table), or `UInt32.max` when unknown.
    package let slot: UInt32

    /// Wraps an identifier. Only schedulers create handles.
    ///
    /// - Parameter id: The scheduler's identifier for the action.
    public init(id: UInt64) {
        self.id = id
        self.slot = .max
    }

    /// Wraps an identifier and the row that holds the action.
    package init(id: UInt64, slot: UInt32) {
        self.id = id
        self.slot = slot
    }
}

/// One of Tempo's objects that ``SystemScheduler`` calls back when a deadline armed for it comes due, without a
/// closure per arm.
///
/// Tempo's own types arm ``SystemScheduler`` this way so that a repeating timer allocates nothing per tick. The
/// scheduler keeps the target alive until the action ran or was cancelled, like a closure's captures. An enum of the
/// two kinds of target rather than a protocol existential, so that it costs one word (not two) per pending action.
enum ScheduledTargetReference: Sendable {
    case timer(TempoTimer)
    /// A timer with the default delivery (``TimerDelivery/privateQueue``): in a mass expiry its transition runs on
    /// the delivery pool with its drain (see ``LaneBatch/Member/due(_:)``), which the driver thread knows from the
    /// case alone, without reading the timer.
    case pooledTimer(TempoTimer)
    case wheel(WheelDriver)

    /// Called on the scheduler's thread, outside its locks, once the deadline of the action `id` was reached.
    /// `now` is the clock's reading that found the action due, if the caller has it.
    func scheduledDeadlineReached(id: UInt64, now: TimerInstant? = nil) {
        switch self {
        case .timer(let timer), .pooledTimer(let timer): timer.scheduledActionReached(id: id, now: now)
        case .wheel(let driver): driver.scheduledDeadlineReached(tag: id)
        }
    }
}
