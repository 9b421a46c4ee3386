import Foundation
public import Tempo

extension Plan {
    /// The fires of this plan as an `AsyncSequence`, on the wall clock.
    ///
    /// ```swift
    /// for await fire in try plan.fires() {
    ///     await sendReport(for: fire.planned)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - leeway: How late past a date the sleep may end, to batch wakeups.
    ///   - latePolicy: What happens to dates that fall due while the loop body runs or the machine sleeps
    ///     (default `LateTickPolicy.coalesce`).
    ///   - scheduler: The scheduler whose wall clock is used (default `SystemScheduler.shared`; pass a
    ///     `VirtualClock` in tests).
    /// - Returns: The sequence.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidLeeway`` for a negative or oversized leeway.
    public func fires(
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws(PlanError) -> PlanFires {
        try PlanTimer.validate(leeway: leeway)
        return PlanFires(
            plan: self, latePolicy: latePolicy, leeway: leeway, clock: TempoClock(.wall, scheduler: scheduler))
    }
}

/// The fires of a ``Plan`` as an asynchronous sequence (see ``Plan/fires(leeway:latePolicy:scheduler:)``).
///
/// ## Timing
/// - **Dates**: each iterator serves the plan's dates strictly after its first `next()` call. It sleeps on the
///   wall clock (`TempoClock` of `TimerClock.wall`) until the next date, so it never hands a fire over
///   early, and a sleep follows the system clock when it is set.
/// - **Late dates**: `LateTickPolicy` applies as for ``PlanTimer``, when the consumer asks for the next
///   fire after more than one date is due.
/// - **Never twice**: each date is served once per iterator, also after the wall clock is set back.
/// - **Time zones**: as for ``PlanTimer``: a plan in `TimeZone.autoupdatingCurrent` checks the local zone at each
///   wakeup and sleeps at most ``PlanTimer/zoneCheckInterval`` at a time, so a change of the system's zone moves
///   the pending date within 60 seconds; named zones are not checked.
/// - **Cancellation**: cancelling the consuming task ends the sequence at once: `next()` returns `nil`.
///
/// ## Thread safety
/// The sequence is `Sendable` and may be iterated any number of times; each iterator is owned by one task.
public struct PlanFires: AsyncSequence, Sendable {
    /// A fire.
    public typealias Element = PlanFire
    /// The sequence never throws: cancellation ends it.
    public typealias Failure = Never

    /// The plan.
    public let plan: Plan
    /// What happens to dates that fell due while the consumer was busy.
    public let latePolicy: LateTickPolicy
    /// The tolerance of each sleep.
    public let leeway: Duration
    /// The wall clock the sequence sleeps on.
    public let clock: TempoClock

    /// Creates an iterator; its dates start at its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// The iterator of a ``PlanFires``: owned by one task.
    public struct Iterator: AsyncIteratorProtocol {
        private var fires: PulledIterator<Dates>

        init(sequence: PlanFires) {
            fires = PulledIterator(Dates(sequence: sequence))
        }

        /// Waits for the next fire.
        ///
        /// - Parameter actor: The caller's actor, on which the iterator stays between sleeps.
        /// - Returns: The next fire, or `nil` when the plan has no more dates or the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> PlanFire? {
            await fires.next(isolation: actor)
        }

        /// Waits for the next fire, off any actor; prefer ``next(isolation:)``, which `for await` uses.
        ///
        /// - Returns: The next fire, or `nil` when the plan has no more dates or the task was cancelled.
        public mutating func next() async -> PlanFire? {
            await next(isolation: nil)
        }
    }

    /// The plan's position for one iterator; its dates start at its first decision.
    private struct Dates: PulledSchedule {
        let sequence: PlanFires
        var cursor: PlanCursor?

        var clock: TempoClock { sequence.clock }
        var tolerance: Duration { sequence.leeway }

        mutating func decide() -> PulledStep<PlanFire, TimerInstant> {
            let now = sequence.clock.now
            let nanoseconds = PlanInstant.nanoseconds(now)
            var cursor =
                self.cursor ?? PlanCursor(node: sequence.plan.node, policy: sequence.latePolicy, start: nanoseconds)
            cursor.refreshZones(now: nanoseconds)
            let decision = cursor.decide(now: nanoseconds)
            self.cursor = cursor
            switch decision {
            case .deliver(let planned, let missed, let missedIsLowerBound):
                return .deliver(
                    PlanFire(
                        planned: PlanInstant.date(planned),
                        lateness: Swift.max(.zero, now - PlanInstant.timerInstant(planned)),
                        missed: missed, index: cursor.fired, missedIsLowerBound: missedIsLowerBound))
            case .wait(let date):
                // No clamp: a clock sleep takes any instant plans represent (to 2262), and a clamp to a fixed limit
                // that the wall clock has passed (2116) would return at once and spin.
                return .sleep(until: PlanInstant.timerInstant(cursor.wakeup(for: date, now: nanoseconds)))
            case .finished:
                return .finished
            }
        }
    }
}

/// Each iterator is owned by the task that iterates: it holds the plan's position.
@available(*, unavailable)
extension PlanFires.Iterator: Sendable {}
