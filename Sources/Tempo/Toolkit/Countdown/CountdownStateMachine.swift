/// The lifecycle of a ``Countdown`` as a value: each event returns the action its owner performs after
/// releasing the lock.
///
/// The owner never creates, starts or cancels its internal ``TempoTimer`` under its own lock (so there is no
/// lock order between a countdown and its timer): an ``Arm`` action asks it to create and start a timer for
/// one run, and ``timerStarted(_:generation:)`` hands the started timer back, which the machine keeps only if
/// that run is still current. Every run has a *generation*; leaving a run (pause, cancel, finish, re-arm)
/// bumps it, so ticks and timers of an older run are recognised as stale.
///
/// Illegal transitions (a generation from the future, a timer handed back twice) fail an assertion in debug
/// builds; in release builds the event is ignored and the extra timer cancelled.
package struct CountdownStateMachine {
    package enum State {
        /// Created, not started, with the time a run would count down.
        case idle(remaining: Duration)
        /// Counting down toward `deadline`; `timer` is `nil` until the owner hands the started timer back.
        case running(deadline: TimerInstant, timer: TempoTimer?)
        /// Paused, with the time left frozen.
        case paused(remaining: Duration)
        /// Reached zero.
        case finished
        /// Cancelled before reaching zero, with the time that was left.
        case cancelled(remaining: Duration)
    }

    /// Create and start a timer whose first tick is due `delay` after the event's `now`, for run `generation`.
    package struct Arm: Equatable {
        package let generation: UInt64
        package let deadline: TimerInstant
        package let delay: Duration
    }

    /// What ``start(now:)``, ``resume(now:)`` and ``restore(_:remaining:deadline:now:)`` ask of the owner.
    package enum StartAction {
        case none
        case arm(Arm)
    }

    /// What ``pause(now:)`` and ``cancel(now:)`` ask of the owner.
    package enum StopAction {
        case none
        /// Cancel this timer (`nil` when the run's timer was not handed back yet).
        case cancelTimer(TempoTimer?)
    }

    /// What ``add(_:now:)`` did.
    package enum AddAction {
        /// The countdown is finished or cancelled: nothing changed.
        case unchanged
        /// An idle or paused countdown's time left grew.
        case grew
        /// A running countdown's deadline moved: cancel the old timer, arm a new one.
        case rearm(Arm, cancel: TempoTimer?)
    }

    /// What the owner does with a timer it handed back with ``timerStarted(_:generation:)``.
    package enum TimerStartedAction: Equatable {
        /// The run is current: the machine keeps the timer.
        case keep
        /// The run ended meanwhile: cancel the timer.
        case cancel
    }

    /// What a tick of the internal timer means, from ``boundaryReached(generation:now:)``.
    package enum BoundaryAction {
        /// A stale tick (an older run, or not running): nothing to do.
        case none
        /// Call `onTick` with the time left.
        case tick(Duration)
        /// The time is up: cancel the timer, then call `onFinish` (once per run).
        case finish(cancel: TempoTimer?)
    }

    package private(set) var state: State
    /// The current run; bumped whenever a run starts or ends.
    package private(set) var generation: UInt64 = 0
    /// The value the current run's last tick reported: a later tick that stands for the same boundary (two ticks
    /// delivered within one period on a busy machine) is dropped, so a run's values strictly decrease.
    private var lastTick: Duration?
    package let duration: Duration
    package let period: Duration

    package init(duration: Duration, period: Duration) {
        self.duration = duration
        self.period = period
        state = .idle(remaining: duration)
    }

    /// The public phase.
    package var phase: Countdown.Phase {
        switch state {
        case .idle: .idle
        case .running: .running
        case .paused: .paused
        case .finished: .finished
        case .cancelled: .cancelled
        }
    }

    /// The timer of the current run, if it was handed back.
    package var timer: TempoTimer? {
        guard case .running(_, let timer) = state else { return nil }
        return timer
    }

    /// The time left at `now`: live while running (never negative), frozen while paused, idle or cancelled,
    /// zero once finished.
    package func remaining(at now: TimerInstant) -> Duration {
        switch state {
        case .running(let deadline, _): max(.zero, now.saturatingDuration(to: deadline))
        case .idle(let remaining), .paused(let remaining), .cancelled(let remaining): remaining
        case .finished: .zero
        }
    }

    // MARK: Events

    /// Starts a run: from idle or paused with the time left, from finished or cancelled with the full
    /// duration; a running countdown is unchanged.
    package mutating func start(now: TimerInstant) -> StartAction {
        switch state {
        case .running:
            return .none
        case .idle(let remaining), .paused(let remaining):
            return .arm(beginRun(deadline: now + remaining, now: now))
        case .finished, .cancelled:
            return .arm(beginRun(deadline: now + duration, now: now))
        }
    }

    /// Resumes a paused countdown; does nothing in any other phase.
    package mutating func resume(now: TimerInstant) -> StartAction {
        guard case .paused = state else { return .none }
        return start(now: now)
    }

    /// Pauses a running countdown, freezing the time left; does nothing in any other phase.
    package mutating func pause(now: TimerInstant) -> StopAction {
        guard case .running(let deadline, let timer) = state else { return .none }
        generation &+= 1
        state = .paused(remaining: max(.zero, now.saturatingDuration(to: deadline)))
        return .cancelTimer(timer)
    }

    /// Cancels an idle, running or paused countdown; a finished or cancelled one is unchanged.
    package mutating func cancel(now: TimerInstant) -> StopAction {
        switch state {
        case .running(let deadline, let timer):
            generation &+= 1
            state = .cancelled(remaining: max(.zero, now.saturatingDuration(to: deadline)))
            return .cancelTimer(timer)
        case .idle(let remaining), .paused(let remaining):
            generation &+= 1
            state = .cancelled(remaining: remaining)
            return .cancelTimer(nil)
        case .finished, .cancelled:
            return .none
        }
    }

    /// Adds `extra` (positive, validated by the owner) to the time left.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` when the time left would exceed
    ///   ``TempoError/maximumDuration``; the machine is then unchanged.
    package mutating func add(_ extra: Duration, now: TimerInstant) throws(TempoError) -> AddAction {
        let left: Duration
        switch state {
        case .running(let deadline, _): left = max(.zero, now.saturatingDuration(to: deadline))
        case .idle(let remaining), .paused(let remaining): left = remaining
        case .finished, .cancelled: return .unchanged
        }
        guard extra <= TempoError.maximumDuration - left else {
            throw TempoError(
                .invalidInterval,
                value: extra.exactDescription,
                message: """
                    adding \(extra.exactDescription) to the \(left.exactDescription) left would exceed the maximum \
                    of \(TempoError.maximumDuration.exactDescription)
                    """
            )
        }
        switch state {
        case .running(_, let timer):
            return .rearm(beginRun(deadline: now + (left + extra), now: now), cancel: timer)
        case .idle:
            state = .idle(remaining: left + extra)
        case .paused:
            state = .paused(remaining: left + extra)
        case .finished, .cancelled:
            break
        }
        return .grew
    }

    /// Puts a fresh machine in a restored phase; a running one counts toward `deadline` (which may have
    /// passed: it then finishes at the first chance).
    package mutating func restore(
        _ phase: Countdown.Phase,
        remaining: Duration,
        deadline: TimerInstant,
        now: TimerInstant
    ) -> StartAction {
        guard case .idle = state, generation == 0 else {
            assertionFailure("restore(_:) on a countdown that already ran: \(state)")
            return .none
        }
        switch phase {
        case .running: return .arm(beginRun(deadline: deadline, now: now))
        case .idle: state = .idle(remaining: remaining)
        case .paused: state = .paused(remaining: remaining)
        case .cancelled: state = .cancelled(remaining: remaining)
        case .finished: state = .finished
        }
        return .none
    }

    /// The owner started the timer of run `generation`.
    package mutating func timerStarted(_ timer: TempoTimer, generation: UInt64) -> TimerStartedAction {
        guard generation <= self.generation else {
            assertionFailure("timer of run \(generation) handed back, but the current run is \(self.generation)")
            return .cancel
        }
        guard generation == self.generation, case .running(let deadline, let current) = state else { return .cancel }
        guard current == nil else {
            assertionFailure("a second timer handed back for run \(generation)")
            return .cancel
        }
        state = .running(deadline: deadline, timer: timer)
        return .keep
    }

    /// A tick of run `generation`'s timer came at `now`.
    package mutating func boundaryReached(generation: UInt64, now: TimerInstant) -> BoundaryAction {
        assert(generation <= self.generation, "tick of run \(generation) from the future (now \(self.generation))")
        guard generation == self.generation, case .running(let deadline, let timer) = state else { return .none }
        let left = now.saturatingDuration(to: deadline)
        // Show the boundary the tick stands for (a whole number of periods), not the few microseconds less
        // that a real clock reads by the time the handler runs, which truncation would turn into one less.
        guard left <= .zero else {
            let value = period * Int(clamping: Self.periodsRoundedUp(left, period))
            if let lastTick, value >= lastTick { return .none }
            lastTick = value
            return .tick(value)
        }
        self.generation &+= 1
        state = .finished
        return .finish(cancel: timer)
    }

    /// The owner is going away: the timer to cancel.
    package mutating func ownerDeinitialized() -> TempoTimer? {
        defer { generation &+= 1 }
        return timer
    }

    // MARK: Helpers

    private mutating func beginRun(deadline: TimerInstant, now: TimerInstant) -> Arm {
        generation &+= 1
        lastTick = nil
        state = .running(deadline: deadline, timer: nil)
        return Arm(
            generation: generation, deadline: deadline,
            delay: Self.firstTickDelay(to: deadline, now: now, period: period))
    }

    /// The delay from `now` to the first display boundary `deadline - m · period` after now (zero when the
    /// deadline has passed). ``add(_:now:)`` and restoring keep the time left within
    /// ``TempoError/maximumDuration``, so the delay is a valid first-tick delay.
    package static func firstTickDelay(to deadline: TimerInstant, now: TimerInstant, period: Duration) -> Duration {
        let boundaries = TickGrid(first: deadline, interval: period, count: nil, policy: .coalesce)
        let first = deadline <= now ? now : boundaries.firstSlot(after: now)?.due ?? now
        return min(max(.zero, now.saturatingDuration(to: first)), TempoError.maximumDuration)
    }

    /// `ceil(left / period)` for a positive `left`.
    package static func periodsRoundedUp(_ left: Duration, _ period: Duration) -> Int128 {
        let (quotient, remainder) = left.attoseconds.quotientAndRemainder(dividingBy: period.attoseconds)
        return remainder > 0 ? quotient + 1 : quotient
    }
}
