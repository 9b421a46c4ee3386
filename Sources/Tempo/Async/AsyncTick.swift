/// One tick of an ``AsyncTickSequence``: the async counterpart of ``TimerTick`` for any `Clock`.
///
/// Its fields mean what they mean on ``TimerTick``; only the type of ``due`` follows the sequence's clock,
/// so a tick of `ContinuousClock` carries a `ContinuousClock.Instant` and a tick of ``TempoClock`` a
/// ``TimerInstant`` (see ``timerTick``).
///
/// `AsyncTick` is a value type and is `Sendable`.
public struct AsyncTick<Instant: InstantProtocol>: Hashable, Sendable, CustomStringConvertible
where Instant.Duration == Duration {
    /// The tick's position on the sequence's grid, from 1: tick `k` is due at `first + (k - 1) · interval`.
    public let index: Int
    /// The instant of the sequence's clock at which the tick was due.
    public let due: Instant
    /// How long after ``due`` the sequence handed the tick to its consumer. Never negative: a tick is never
    /// delivered early.
    public let lateness: Duration
    /// How many earlier ticks were folded into this one (``LateTickPolicy/coalesce``) or dropped before it
    /// (``LateTickPolicy/skip``). Always 0 under ``LateTickPolicy/burst``.
    public let missed: Int

    /// Creates a tick value (for tests).
    ///
    /// - Parameters:
    ///   - index: The tick's grid index, from 1.
    ///   - due: The instant the tick was due.
    ///   - lateness: How late the tick was delivered.
    ///   - missed: Ticks folded into or dropped before this one.
    public init(index: Int, due: Instant, lateness: Duration, missed: Int = 0) {
        self.index = index
        self.due = due
        self.lateness = lateness
        self.missed = missed
    }

    /// For example `tick 3 due … late 0.0 seconds missed 0`.
    public var description: String {
        "tick \(index) due \(due) late \(lateness) missed \(missed)"
    }
}

extension AsyncTick where Instant == TimerInstant {
    /// The same tick as a core ``TimerTick`` (never manual), for code shared with ``TempoTimer`` handlers.
    public var timerTick: TimerTick {
        TimerTick(index: index, due: due, lateness: lateness, missed: missed)
    }
}
