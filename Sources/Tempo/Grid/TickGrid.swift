/// The anchored grid of a repeating schedule and its late-tick bookkeeping: the one implementation of slots and
/// late-tick policies, shared by ``TempoTimer``, ``AsyncTickSequence``, ``Countdown`` and the latency probe.
///
/// Slot `k` (0-based) is due at `first + k · interval`; a slot is *claimed* when it is handed to delivery, or
/// folded in or dropped by the ``LateTickPolicy``. A grid has at most `Int.max` slots (a "forever" grid ends
/// after slot `Int.max - 1`, about 292 years of 1 ns slots), and a slot whose due instant cannot be represented
/// is never due: the grid ends before it. All arithmetic is checked, so no input instant, interval or jump of
/// the clock can trap: slot numbers saturate, and unrepresentable instants end the grid.
///
/// A value type with no locks; owners keep it under their own lock.
package struct TickGrid: Hashable, Sendable {
    /// What ``claim(at:oneSlot:)`` decided.
    package enum Claim: Hashable, Sendable {
        /// The next slot is not due yet; it is due at the instant.
        case notDue(TimerInstant)
        /// Slots `first...last` are handed to delivery, in order; `missed` slots were folded in or dropped
        /// before `first` (reported on its tick).
        case deliver(first: Int, last: Int, missed: Int)
        /// ``LateTickPolicy/skip`` dropped every due slot; nothing is delivered now (claim again for the next).
        case dropped
        /// Every slot has been claimed.
        case finished
    }

    /// The period between slots; always positive.
    package let interval: Duration
    /// The number of slots: the finite count, or `Int.max` for a grid that never ends on its own.
    package let slotCount: Int
    /// The slot due at ``anchor``: slot 0 at first, then the next unclaimed slot after each claim (the slots stay where
    /// they are), or the slot ``moveNextSlot(to:)`` moved (the later slots move with it). Not part of what a grid is:
    /// two grids with the same slots compare equal only with the same anchor.
    private var anchorSlot = 0
    /// The due instant of ``anchorSlot``.
    private var anchor: TimerInstant
    /// The next slot not yet claimed.
    package private(set) var nextSlot = 0
    /// Slots dropped by ``LateTickPolicy/skip`` since the last delivery.
    package private(set) var dropped = 0
    /// What happens to slots that are found late. Declared last, so that owners can pack small fields into the
    /// grid's tail padding.
    package let policy: LateTickPolicy

    /// Creates a grid whose slot 0 is due at `first`.
    ///
    /// - Parameters:
    ///   - first: The due instant of slot 0.
    ///   - interval: The period; must be positive.
    ///   - count: The number of slots (at least 1), or `nil` for `Int.max` slots.
    ///   - policy: The late-tick policy.
    /// - Precondition: `interval > .zero` and `count ?? 1 >= 1` (callers validate input with typed errors first).
    package init(first: TimerInstant, interval: Duration, count: Int?, policy: LateTickPolicy) {
        precondition(interval.attoseconds > 0, "a tick grid needs a positive interval, got \(interval)")
        precondition((count ?? 1) >= 1, "a tick grid needs at least one slot, got \(count ?? 0)")
        self.anchor = first
        self.interval = interval
        self.slotCount = count ?? .max
        self.policy = policy
    }

    /// Starts the grid over with slot 0 due at `first`, keeping its interval, slot count and policy.
    ///
    /// The same grid as a new one with these values, without checking them again (they were checked when this
    /// grid was created).
    ///
    /// - Parameter first: The due instant of slot 0.
    /// - Complexity: O(1).
    package mutating func restart(first: TimerInstant) {
        anchorSlot = 0
        anchor = first
        nextSlot = 0
        dropped = 0
    }

    // MARK: Queries

    /// The due instant of `slot`, or `nil` when it cannot be represented.
    ///
    /// - Complexity: O(1).
    package func due(_ slot: Int) -> TimerInstant? {
        // The anchor's own slot (the next one: ``claim(at:oneSlot:)`` moves the anchor to it) needs no arithmetic, and
        // the one after it an addition, not a 128-bit multiplication.
        if slot == anchorSlot { return anchor }
        if slot > anchorSlot && slot - anchorSlot == 1 { return anchor.checkedAdvanced(by: interval) }
        let steps = Int128(slot) - Int128(anchorSlot)
        let (product, productOverflow) = interval.attoseconds.multipliedReportingOverflow(by: steps)
        guard !productOverflow else { return nil }
        let (sum, sumOverflow) = anchor.offset.attoseconds.addingReportingOverflow(product)
        guard !sumOverflow else { return nil }
        return TimerInstant(offset: Duration(attoseconds: sum))
    }

    /// The last slot due at or before `instant` (negative before slot 0), saturating at `Int.min` / `Int.max`.
    ///
    /// - Complexity: O(1).
    package func slot(at instant: TimerInstant) -> Int {
        let (difference, overflow) = instant.offset.attoseconds.subtractingReportingOverflow(anchor.offset.attoseconds)
        let steps: Int128
        if overflow {
            steps = instant > anchor ? .max : .min
        } else if difference >= 0 && difference < interval.attoseconds {
            // The anchor's own slot, the common case (a tick claimed less than an interval late): no 128-bit
            // division.
            steps = 0
        } else {
            let (quotient, remainder) = difference.quotientAndRemainder(dividingBy: interval.attoseconds)
            steps = remainder < 0 ? quotient - 1 : quotient
        }
        let (slot, slotOverflow) = Int(clamping: steps).addingReportingOverflow(anchorSlot)
        return slotOverflow ? (steps > 0 ? .max : .min) : slot
    }

    /// Whether every slot has been claimed (or the next one can never be due).
    package var isFinished: Bool { nextSlot >= slotCount || due(nextSlot) == nil }

    /// The due instant of the next unclaimed slot, or `nil` when the grid is finished.
    package var nextDue: TimerInstant? { nextSlot < slotCount ? due(nextSlot) : nil }

    /// The slots not yet claimed.
    package var remainingSlots: Int { slotCount - nextSlot }

    /// The time from `now` to the next slot, never negative; `nil` when the grid is finished.
    package func timeUntilNextSlot(from now: TimerInstant) -> Duration? {
        nextDue.map { now.saturatingDuration(to: $0) }.map { max(.zero, $0) }
    }

    /// The first slot due strictly after `instant` and its due instant, or `nil` when there is none.
    ///
    /// The grid extends before slot 0 for this query (negative slots), so a grid anchored at a deadline finds
    /// the boundaries that lead up to it.
    package func firstSlot(after instant: TimerInstant) -> (slot: Int, due: TimerInstant)? {
        let current = slot(at: instant)
        guard current < slotCount - 1 else { return nil }
        return due(current + 1).map { (current + 1, $0) }
    }

    // MARK: Claiming

    /// Claims what is due at `now` according to the policy.
    ///
    /// - Parameters:
    ///   - now: The current instant of the grid's clock.
    ///   - oneSlot: Under ``LateTickPolicy/burst``, claim only the next due slot (a consumer that takes one
    ///     tick per call) instead of every due slot.
    /// - Returns: What to do; see ``Claim``.
    /// - Complexity: O(1).
    package mutating func claim(at now: TimerInstant, oneSlot: Bool = false) -> Claim {
        let claim = claimSlots(at: now, oneSlot: oneSlot)
        anchorAtNextSlot()
        return claim
    }

    /// Moves the anchor to the next unclaimed slot, where the grid's queries start (see ``due(_:)`` and
    /// ``slot(at:)``): in the steady state of a repeating timer they then find their slot with no 128-bit
    /// multiplication or division. The grid's slots do not move: every due instant is exact in attoseconds, so
    /// `anchor + (k - anchorSlot) · interval` is the same instant from either anchor. Left where it is when the next
    /// slot's instant cannot be represented (the grid is finished).
    private mutating func anchorAtNextSlot() {
        guard nextSlot > anchorSlot, nextSlot < slotCount, let next = due(nextSlot) else { return }
        anchorSlot = nextSlot
        anchor = next
    }

    private mutating func claimSlots(at now: TimerInstant, oneSlot: Bool) -> Claim {
        guard !isFinished else { return .finished }
        let first = nextSlot
        let current = slot(at: now)
        guard current >= first else { return .notDue(due(first)!) }
        let last = min(current, slotCount - 1)
        switch policy.kind {
        case .burst:
            // At most `maximumBurst` slots are delivered; older ones are reported as missed on the first.
            let start = last - first >= LateTickPolicy.maximumBurst ? last - (LateTickPolicy.maximumBurst - 1) : first
            let end = oneSlot ? start : last
            nextSlot = end + 1
            return .deliver(first: start, last: end, missed: start - first)
        case .coalesce:
            nextSlot = last + 1
            return .deliver(first: last, last: last, missed: last - first)
        case .skip:
            guard last == first else {
                let (sum, overflow) = dropped.addingReportingOverflow(last - first + 1)
                dropped = overflow ? .max : sum
                nextSlot = last + 1
                return .dropped
            }
            defer { dropped = 0 }
            nextSlot = first + 1
            return .deliver(first: first, last: first, missed: dropped)
        }
    }

    /// Shifts the grid so that the next unclaimed slot is due at `instant` (resuming after a pause); the later
    /// slots keep their spacing.
    package mutating func moveNextSlot(to instant: TimerInstant) {
        anchorSlot = nextSlot
        anchor = instant
    }
}

extension TimerInstant {
    /// The time from this instant to `other`, saturating at the bounds of `Duration` instead of trapping.
    package func saturatingDuration(to other: TimerInstant) -> Duration {
        let (difference, overflow) = other.offset.attoseconds.subtractingReportingOverflow(offset.attoseconds)
        guard overflow else { return Duration(attoseconds: difference) }
        return Duration(attoseconds: other > self ? .max : .min)
    }

    /// This instant moved by `duration`, or `nil` when the result cannot be represented.
    package func checkedAdvanced(by duration: Duration) -> TimerInstant? {
        let (sum, overflow) = offset.attoseconds.addingReportingOverflow(duration.attoseconds)
        return overflow ? nil : TimerInstant(offset: Duration(attoseconds: sum))
    }
}

extension Duration {
    /// `self + step · count`, saturating at the bounds of `Duration` instead of trapping.
    package func saturatingAdding(_ step: Duration, times count: Int) -> Duration {
        // Every tick that missed nothing (a tick's `overdue`): no 128-bit multiplication.
        if count == 0 { return self }
        let (product, productOverflow) = step.attoseconds.multipliedReportingOverflow(by: Int128(count))
        let (sum, sumOverflow) = attoseconds.addingReportingOverflow(product)
        guard !productOverflow, !sumOverflow else {
            return Duration(attoseconds: (step > .zero) == (count > 0) ? .max : .min)
        }
        return Duration(attoseconds: sum)
    }
}
