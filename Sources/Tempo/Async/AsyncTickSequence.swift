/// An asynchronous sequence of ticks on an anchored grid of any `Clock`: every interval, a fixed number of
/// times or forever.
///
/// ```swift
/// for await tick in try AsyncTickSequence(every: .milliseconds(250), clock: ContinuousClock()) {
///     redraw(frame: tick.index)
/// }
/// ```
///
/// ## Timing
/// - **First tick**: one interval after the first call to `next()` (the start of the `for await` loop).
///   Each iterator has its own grid.
/// - **Anchored grid**: tick `k` is due at `start + k · interval`, however long the loop body took, so
///   nothing drifts: the error after any number of ticks is the lateness of the last one, not a sum.
/// - **Never early**: a tick is handed over no earlier than its due instant; `leeway` is passed to the
///   clock as the sleep's tolerance.
/// - **Late ticks**: when the consumer asks for a tick after more than one is due, ``LateTickPolicy``
///   decides, exactly as for ``TempoTimer``: ``LateTickPolicy/coalesce`` (default) hands over the most
///   recent due tick with ``AsyncTick/missed`` counting the others, so a slow consumer never gets a
///   burst; ``LateTickPolicy/burst`` hands over every due tick back to back; ``LateTickPolicy/skip`` drops
///   them and waits for the next one. A tick less than one interval late is handed over under every policy.
/// - **No timer while the body runs**: the sequence is pulled; a deadline is armed only while the
///   consumer awaits `next()`. There is no pause: stop iterating, and start a new loop to start a new grid.
/// - **Cancellation**: cancelling the consuming task ends the sequence: the pending sleep is cancelled at
///   once (its deadline disarmed and released) and `next()` returns `nil`. A cancelled task's loop ends
///   before its next tick. Nothing is retained after the loop ends.
///
/// ## Clocks
/// Any clock whose `Duration` is `Swift.Duration` works: `ContinuousClock`, `SuspendingClock`,
/// ``TempoClock`` (Tempo's schedulers and clocks, including the wall clock) and test clocks such as
/// `VirtualClock` (in `TempoTesting`) or swift-clocks' `TestClock`, so code that consumes ticks is
/// tested without waiting.
///
/// ## Thread safety
/// The sequence is `Sendable` and may be iterated any number of times, from any task; each iterator is
/// owned by one task and is not `Sendable`. Its `next(isolation:)` runs on the caller's actor, so a loop
/// on the main actor stays there between ticks.
public struct AsyncTickSequence<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
    /// A tick, with its due instant on `C`.
    public typealias Element = AsyncTick<C.Instant>
    /// The sequence never throws: cancellation ends it.
    public typealias Failure = Never

    /// The period between ticks.
    public let interval: Duration
    /// How many ticks each iteration delivers at most.
    public let repeats: TimerRepeats
    /// How late past its due instant a tick may be, passed to the clock as the sleep's tolerance.
    public let leeway: Duration
    /// What happens to ticks that fell due while the consumer was busy.
    public let latePolicy: LateTickPolicy
    /// The clock deadlines are measured on.
    public let clock: C

    /// Creates a tick sequence.
    ///
    /// - Parameters:
    ///   - interval: The period between ticks, and the delay before the first one.
    ///   - repeats: ``TimerRepeats/once``, ``TimerRepeats/times(_:)`` or ``TimerRepeats/forever`` (default).
    ///   - leeway: The tolerance for each sleep (default zero: as punctual as the clock can be).
    ///   - latePolicy: What happens to missed ticks (default ``LateTickPolicy/coalesce``).
    ///   - clock: The clock deadlines are measured on.
    /// - Throws: ``TempoError`` when `interval` is not positive, below 1 ns or above
    ///   292 years (`Int64.max` ns), a count is below 1, or `leeway` is negative or oversized.
    public init(
        every interval: Duration,
        repeats: TimerRepeats = .forever,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        clock: C
    ) throws(TempoError) {
        try TempoError.validateSchedule(interval: interval, repeats: repeats, leeway: leeway)
        self.interval = interval
        self.repeats = repeats
        self.leeway = leeway
        self.latePolicy = latePolicy
        self.clock = clock
    }

    /// Creates an iterator with its own grid, anchored at its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            clock: clock,
            leeway: leeway,
            schedule: SlotSchedule(interval: interval, total: repeats.total, policy: latePolicy)
        )
    }

    /// The iterator of an ``AsyncTickSequence``: owned by one task.
    public struct Iterator: AsyncIteratorProtocol {
        private var ticks: PulledIterator<Grid>

        init(clock: C, leeway: Duration, schedule: SlotSchedule) {
            ticks = PulledIterator(Grid(clock: clock, tolerance: leeway, slots: schedule))
        }

        /// Waits for the next tick; see ``AsyncTickSequence`` for the timing rules.
        ///
        /// - Parameter actor: The caller's actor, on which the iterator stays between sleeps.
        /// - Returns: The next tick, or `nil` when a finite sequence is done or the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Element? {
            await ticks.next(isolation: actor)
        }

        /// Waits for the next tick, off any actor; prefer ``next(isolation:)``, which `for await` uses.
        ///
        /// - Returns: The next tick, or `nil` when a finite sequence is done or the task was cancelled.
        public mutating func next() async -> Element? {
            await next(isolation: nil)
        }
    }

    /// The grid of one iterator, anchored at its first `next()`.
    private struct Grid: PulledSchedule {
        typealias Element = AsyncTick<C.Instant>

        let clock: C
        let tolerance: Duration
        var slots: SlotSchedule
        /// The instant slot 0 is due; set by the first decision.
        var origin: C.Instant?

        mutating func decide() -> PulledStep<Element, C.Instant> {
            let origin = self.origin ?? clock.now.advanced(by: slots.interval)
            self.origin = origin
            let now = clock.now
            switch slots.decide(elapsed: origin.duration(to: now)) {
            case .deliver(let slot, let missed):
                // A delivered slot is due at or before `now`, so its offset is representable.
                let due = origin.advanced(by: slots.offset(of: slot) ?? origin.duration(to: now))
                let lateness = Swift.max(.zero, due.duration(to: now))
                return .deliver(Element(index: slot + 1, due: due, lateness: lateness, missed: missed))
            case .wait(let slot):
                // A slot with no offset is never due: see TickGrid.
                guard let offset = slots.offset(of: slot) else { return .finished }
                return .sleep(until: origin.advanced(by: offset))
            case .finished:
                return .finished
            }
        }
    }
}

/// Each iterator is owned by the task that iterates: it holds the grid's position.
@available(*, unavailable)
extension AsyncTickSequence.Iterator: Sendable {}
