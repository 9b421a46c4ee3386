public import Dispatch

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

    /// Creates a tick value (for tests and for custom schedulers).
    ///
    /// - Parameters:
    ///   - index: The tick's grid index, from 1.
    ///   - due: The instant the tick was due.
    ///   - lateness: How late the handler started.
    ///   - missed: Ticks folded into or dropped before this one.
    ///   - isManual: Whether a manual fire produced the tick.
    public init(index: Int, due: TimerInstant, lateness: Duration, missed: Int = 0, isManual: Bool = false) {
        self.index = index
        self.due = due
        self.lateness = lateness
        self.missed = missed
        self.isManual = isManual
    }

    /// For example `tick 3 due 1.5 seconds late 0.0 seconds missed 0`.
    public var description: String {
        "tick \(index)\(isManual ? " (manual)" : "") due \(due) late \(lateness) missed \(missed)"
    }
}

/// The lifecycle state of a ``TempoTimer``.
public enum TimerState: Hashable, Sendable, CustomStringConvertible {
    /// Created and never started.
    case idle
    /// Started; a deadline is armed.
    case running
    /// Paused; the time left to the next tick is kept for ``TempoTimer/resume()``.
    case paused
    /// Every scheduled tick of a finite timer has been handed to delivery.
    case finished
    /// Cancelled; nothing is delivered until the timer is started again.
    case cancelled

    /// `idle`, `running`, `paused`, `finished` or `cancelled`.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .running: "running"
        case .paused: "paused"
        case .finished: "finished"
        case .cancelled: "cancelled"
        }
    }
}

/// What a timer does with ticks whose due instant passed while it could not run them (the process was
/// suspended, the machine slept, the delivery queue was busy, or a handler ran long).
///
/// A tick is *missed* when the timer wakes after the next tick is already due as well. A tick that is
/// merely late (less than one interval) is delivered as usual under every policy.
public enum LateTickPolicy: Hashable, Sendable, CaseIterable {
    /// Deliver one tick now for the most recent due slot, with ``TimerTick/missed`` counting the slots
    /// folded into it. The default: a slow consumer never gets a burst.
    case coalesce
    /// Deliver every due slot, in order, back to back, each with its own lateness.
    ///
    /// A burst holds at most ``maximumBurst`` ticks: when more slots are due at once (a long suspension of a
    /// short-interval timer, a wall clock set years ahead), the oldest are not delivered and the first tick of
    /// the burst counts them in ``TimerTick/missed``.
    case burst
    /// Drop every due slot without delivering it and wait for the next slot on the grid; the next delivery
    /// reports the dropped slots in ``TimerTick/missed``. When the dropped slots include the last one of a
    /// finite timer, the timer finishes without delivering it.
    case skip

    /// The most ticks a ``burst`` delivers back to back for one wakeup: 1,000,000 (delivered one at a time, without
    /// memory per tick; a timer of 1 ms suspended for over 16 minutes reaches it).
    public static let maximumBurst = 1_000_000
}

/// How many ticks a timer delivers.
public enum TimerRepeats: Hashable, Sendable {
    /// One tick, then the timer finishes.
    case once
    /// `n` ticks (`n ≥ 1`, otherwise the timer's initializer throws), then the timer finishes.
    case times(Int)
    /// Ticks until cancelled.
    case forever

    /// The number of grid slots, or `nil` for ``forever``.
    var total: Int? {
        switch self {
        case .once: 1
        case .times(let n): n
        case .forever: nil
        }
    }
}

/// When a timer's first tick is due, relative to ``TempoTimer/start()``.
public enum FirstTick: Hashable, Sendable {
    /// One interval after start (the default).
    case afterInterval
    /// This long after start; zero fires at once.
    case after(Duration)
    /// At this instant of the timer's clock. An instant already past when the timer starts is treated like
    /// any late tick: the grid stays anchored at the instant and the ``LateTickPolicy`` decides what runs.
    case at(TimerInstant)
}

/// Where a timer runs its handlers.
///
/// Whatever the queue, runs of one timer's handlers never overlap: each timer delivers through its own
/// serial mailbox, so even a concurrent queue sees one handler run of a timer at a time.
public struct TimerDelivery: Sendable {
    enum Kind: Sendable {
        case privateQueue
        case queue(DispatchQueue)
        case immediate
    }

    let kind: Kind

    /// A serial queue owned by the timer (the default).
    public static let privateQueue = TimerDelivery(kind: .privateQueue)

    /// The given queue: `.main`, a global queue or one of your own.
    ///
    /// - Parameter queue: The queue to run handlers on.
    /// - Returns: The delivery option.
    public static func queue(_ queue: DispatchQueue) -> TimerDelivery {
        TimerDelivery(kind: .queue(queue))
    }

    /// On the scheduler's driver thread, with no queue hop: the most punctual option. Handlers must be
    /// short and must not block, because every timer of that clock waits for them. Manual fires run on the
    /// thread that calls ``TempoTimer/fire()``.
    public static let immediate = TimerDelivery(kind: .immediate)
}
