/// What a timer does with ticks whose due instant passed while it could not run them (the process was
/// suspended, the machine slept, the delivery queue was busy, or a handler ran long).
///
/// A tick is *missed* when the timer wakes after the next tick is already due as well. A tick that is
/// merely late (less than one interval) is delivered as usual under every policy.
///
/// A struct with static members rather than an enum, so that a later version can add a policy: compare with `==`
/// (a `switch` over it needs a `default:`). `LateTickPolicy` is a value type and is `Sendable`.
public struct LateTickPolicy: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The policies, for Tempo's own exhaustive switches.
    package enum Kind: Hashable, Sendable, CaseIterable {
        case coalesce
        case burst
        case skip
    }

    /// Which policy this is.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }

    /// Deliver one tick now for the most recent due slot, with ``TimerTick/missed`` counting the slots
    /// folded into it. The default: a slow consumer never gets a burst.
    public static let coalesce = LateTickPolicy(kind: .coalesce)
    /// Deliver every due slot, in order, back to back, each with its own lateness.
    ///
    /// A burst holds at most ``maximumBurst`` ticks: when more slots are due at once (a long suspension of a
    /// short-interval timer, a wall clock set years ahead), the oldest are not delivered and the first tick of
    /// the burst counts them in ``TimerTick/missed``.
    public static let burst = LateTickPolicy(kind: .burst)
    /// Drop every due slot without delivering it and wait for the next slot on the grid; the next delivery
    /// reports the dropped slots in ``TimerTick/missed``. When the dropped slots include the last one of a
    /// finite timer, the timer finishes without delivering it.
    public static let skip = LateTickPolicy(kind: .skip)

    /// Every policy this version knows: ``coalesce``, ``burst`` and ``skip``.
    public static var allCases: [LateTickPolicy] { Kind.allCases.map(LateTickPolicy.init(kind:)) }

    /// The most ticks a ``burst`` delivers back to back for one wakeup: 1,000,000 (delivered one at a time, without
    /// memory per tick; a timer of 1 ms suspended for over 16 minutes reaches it).
    public static let maximumBurst = 1_000_000

    /// `coalesce`, `burst` or `skip`.
    public var description: String {
        switch kind {
        case .coalesce: "coalesce"
        case .burst: "burst"
        case .skip: "skip"
        }
    }
}
