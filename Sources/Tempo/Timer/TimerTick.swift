/// One delivery of a timer to its handlers.
///
/// `TimerTick` is a value type and is `Sendable`.
public struct TimerTick: Hashable, Sendable, CustomStringConvertible {
    /// The tick's position on the timer's grid: the first tick after `start()` or `reset()` is 1, and tick
    /// `k` is due at `first + (k - 1) · interval`. A manual ``TempoTimer/fire()`` carries the index the next
    /// scheduled tick will have.
    public let index: Int
    /// The instant on the timer's clock at which the tick was due (for a manual fire: when it was requested).
    public let due: TimerInstant
    /// How long after `due` the handler started. Never negative: Tempo never delivers a tick early.
    public let lateness: Duration
    /// How many earlier ticks were folded into this one (``LateTickPolicy/coalesce``) or dropped before it
    /// (``LateTickPolicy/skip``). Under ``LateTickPolicy/burst`` it is 0 unless more than
    /// ``LateTickPolicy/maximumBurst`` slots were due at once (then the oldest are counted here on the first tick
    /// of the burst). Always 0 for manual fires.
    public let missed: Int
    /// Whether ``TempoTimer/fire()`` produced this tick rather than the schedule.
    public let isManual: Bool
    /// How long after the earliest slot this tick stands for the handler started: equal to ``lateness`` when
    /// nothing was missed, and `lateness + missed · interval` when ``missed`` slots were folded in or dropped.
    ///
    /// After a stall (a busy delivery queue, a handler that blocked the driver thread with
    /// ``TimerDelivery/immediate``, a wall clock set forward) the coalesced tick is due at the latest slot and
    /// so looks punctual in ``lateness``; `overdue` shows the whole stall. Saturates at the largest `Duration`.
    public let overdue: Duration

    /// Creates a tick value (for tests and for custom schedulers).
    ///
    /// - Parameters:
    ///   - index: The tick's grid index, from 1.
    ///   - due: The instant the tick was due.
    ///   - lateness: How late the handler started.
    ///   - missed: Ticks folded into or dropped before this one.
    ///   - isManual: Whether a manual fire produced the tick.
    ///   - overdue: How late against the earliest slot the tick stands for (default: `lateness`).
    public init(
        index: Int, due: TimerInstant, lateness: Duration, missed: Int = 0, isManual: Bool = false,
        overdue: Duration? = nil
    ) {
        self.index = index
        self.due = due
        self.lateness = lateness
        self.missed = missed
        self.isManual = isManual
        self.overdue = overdue ?? lateness
    }

    /// For example `tick 3 due 1.5 seconds late 0.0 seconds missed 0`.
    public var description: String {
        "tick \(index)\(isManual ? " (manual)" : "") due \(due) late \(lateness) missed \(missed)"
    }
}
