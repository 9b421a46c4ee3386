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
