/// What a one-shot `at:` API does with a deadline that has already passed when it is called.
///
/// A deadline computed a moment earlier can pass before the call reads the clock (arming 100,000 timers takes
/// long enough for the first deadlines to pass), so the default fires at once instead of throwing: like
/// `Timer(fire:)`, `DispatchSourceTimer` and `Task.sleep(until:)` do with a past deadline, and without a
/// `try!` that crashes on a busy machine. Pass ``throw`` to reject a past deadline instead.
///
/// A struct with static members rather than an enum, so that a later version can add a policy: compare with `==`.
/// `PastDeadlinePolicy` is a value type and is `Sendable`.
public struct PastDeadlinePolicy: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The policies, for Tempo's own exhaustive switches.
    package enum Kind: Hashable, Sendable, CaseIterable {
        case fireImmediately
        case `throw`
    }

    /// Which policy this is.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }

    /// Fire as soon as the scheduler gets to it (on ``SystemScheduler`` at once; on a `VirtualClock` at the next
    /// `advance`, even by zero). The tick's ``TimerTick/due`` is the deadline and its ``TimerTick/lateness``
    /// says how long ago it passed. The default.
    public static let fireImmediately = PastDeadlinePolicy(kind: .fireImmediately)
    /// Throw ``TempoError`` with ``TempoError/Code/invalidInstant`` naming the deadline and the clock's reading.
    ///
    /// The deadline is checked once, where the schedule becomes a timer (creating a ``TempoTimer``, scheduling a
    /// ``TimerRegistry`` entry). Later, ``TempoTimer/start()`` and ``TempoTimer/reset(interval:)`` of that one-shot
    /// once its deadline has passed do not throw: they fire it at once.
    public static let `throw` = PastDeadlinePolicy(kind: .throw)

    /// Every policy this version knows: ``fireImmediately`` and ``throw``.
    public static var allCases: [PastDeadlinePolicy] { Kind.allCases.map(PastDeadlinePolicy.init(kind:)) }

    /// `fireImmediately` or `throw`.
    public var description: String {
        switch kind {
        case .fireImmediately: "fireImmediately"
        case .throw: "throw"
        }
    }
}

extension TempoTimer.Configuration {
    /// A one-shot configuration due at `deadline`; a deadline `now` has already passed follows `policy`.
    ///
    /// Shared by every `at:` entry point so that they treat past deadlines alike.
    static func oneShot(
        at deadline: TimerInstant,
        ifPast policy: PastDeadlinePolicy,
        leeway: Duration,
        clock: TimerClock,
        now: TimerInstant
    ) throws(TempoError) -> TempoTimer.Configuration {
        // Under `.fireImmediately` a past first-tick instant is a late tick: the timer fires at once, due at
        // `deadline`.
        if policy == .throw, deadline < now {
            throw TempoError(
                .invalidInstant,
                value: "\(deadline)",
                message: "deadline \(deadline) on the \(clock) clock has already passed (now \(now))"
            )
        }
        // The grid of a one-shot needs a positive interval; it is never read (reset re-arms at the deadline) nor
        // reported (``TempoTimer/schedule`` says `.at`).
        return TempoTimer.Configuration(
            interval: .seconds(1), repeats: .once, firstTick: .at(TimerDeadline(deadline, clock: clock)),
            leeway: leeway, clock: clock)
    }
}
