/// What a pulled sequence does next: hand an element over, sleep on its clock until an instant and decide again,
/// or end.
package enum PulledStep<Element, Instant> {
    /// Hand this element over.
    case deliver(Element)
    /// Sleep until this instant, then decide again.
    case sleep(until: Instant)
    /// The sequence has no more elements.
    case finished
}

/// The position of a pulled sequence: where it is on its schedule, and how to decide the next step.
///
/// Each iterator owns one, in one task, so it needs no lock.
package protocol PulledSchedule {
    /// What the sequence hands over.
    associatedtype Element
    /// The clock the sequence sleeps on.
    associatedtype SleepClock: Clock

    /// The clock the sequence sleeps on.
    var clock: SleepClock { get }
    /// The tolerance passed to each sleep.
    var tolerance: SleepClock.Duration { get }

    /// Reads the clock and decides the next step; called again after each sleep.
    mutating func decide() -> PulledStep<Element, SleepClock.Instant>
}

/// The loop of an iterator that is pulled: Tempo's ``AsyncTickSequence`` and TempoPlans' `PlanFires`.
///
/// A deadline is armed only while the consumer awaits ``next(isolation:)``. Cancelling the consuming task ends
/// the loop, and so does a sleep that throws (a clock throws for cancellation, and a test clock when it is torn
/// down); once ended, the iterator returns `nil` for good.
///
/// Owned by one task; not `Sendable`.
package struct PulledIterator<Schedule: PulledSchedule> {
    private var schedule: Schedule
    private var ended = false

    package init(_ schedule: Schedule) {
        self.schedule = schedule
    }

    /// Decides, sleeps as the schedule says, and returns the next element, or `nil` once the loop has ended.
    ///
    /// - Parameter actor: The caller's actor, on which the iterator stays between sleeps.
    package mutating func next(isolation actor: isolated (any Actor)?) async -> Schedule.Element? {
        guard !ended else { return nil }
        loop: while !Task.isCancelled {
            switch schedule.decide() {
            case .deliver(let element):
                return element
            case .sleep(let deadline):
                do {
                    try await schedule.clock.sleep(until: deadline, tolerance: schedule.tolerance)
                } catch {
                    break loop
                }
            case .finished:
                break loop
            }
        }
        ended = true
        return nil
    }
}
