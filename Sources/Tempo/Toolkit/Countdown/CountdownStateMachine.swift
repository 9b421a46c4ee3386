/// The lifecycle of a ``Countdown`` as a value: each event returns the action its owner performs after
/// releasing the lock.
///
/// The owner keeps one internal ``TempoTimer`` for its whole life and never touches it under its own lock (so
/// there is no lock order between a countdown and its timer): it re-arms the timer at a run's ``Arm/firstTick``
/// and stops it when a run ends. What the timer should do is ``wantedTimer``; every change of it bumps the
/// *generation*, so an owner that applied an older generation applies the newest one again (see
/// `Countdown.syncTimer()`). A tick due before the current run's first boundary belongs to an older run and is
/// dropped.
///
/// An illegal transition (restoring a machine that already ran) fails an assertion in debug builds; in release
/// builds the event is ignored.
package struct CountdownStateMachine {
    package enum State {
        /// Created, not started, with the time a run would count down.
        case idle(remaining: Duration)
        /// Counting down toward `deadline`; the run's first tick is due at `firstTick`.
        case running(deadline: TimerInstant, firstTick: TimerInstant)
        /// Paused, with the time left frozen.
        case paused(remaining: Duration)
        /// Reached zero.
        case finished
        /// Cancelled before reaching zero, with the time that was left.
        case cancelled(remaining: Duration)
    }

    /// Arm the timer so that its first tick is due `delay` after the event's `now` (at `firstTick`), for run
    /// `generation`.
    package struct Arm: Equatable {
        package let generation: UInt64
        package let deadline: TimerInstant
        package let delay: Duration
        package let firstTick: TimerInstant
    }

    /// What ``start(now:)``, ``resume(now:)`` and ``restore(_:remaining:deadline:now:)`` ask of the owner.
    package enum StartAction {
        case none
        case arm(Arm)
    }

    /// What ``pause(now:)`` and ``cancel(now:)`` ask of the owner.
    package enum StopAction {
        case none
        /// Stop the timer.
        case stopTimer
    }

    /// What ``add(_:now:)`` did.
    package enum AddAction {
        /// The countdown is finished or cancelled: nothing changed.
        case unchanged
        /// An idle or paused countdown's time left grew.
        case grew
        /// A running countdown's deadline moved: re-arm the timer.
        case rearm(Arm)
    }

    /// What a tick of the internal timer means, from ``boundaryReached(now:)``.
    package enum BoundaryAction {
        /// A stale tick (an older run, or not running): nothing to do.
        case none
        /// Call `onTick` with the time left.
        case tick(Duration)
        /// The time is up: stop the timer, then call `onFinish` (once per run).
        case finish
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

    /// What the owner's timer should do: be armed with its first tick at `firstTick` (running), or be stopped
    /// (`nil`), as of `generation`.
    package var wantedTimer: (generation: UInt64, firstTick: TimerInstant?) {
        guard case .running(_, let firstTick) = state else { return (generation, nil) }
        return (generation, firstTick)
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
        guard case .running(let deadline, _) = state else { return .none }
        generation &+= 1
        state = .paused(remaining: max(.zero, now.saturatingDuration(to: deadline)))
        return .stopTimer
    }

    /// Cancels an idle, running or paused countdown; a finished or cancelled one is unchanged.
    package mutating func cancel(now: TimerInstant) -> StopAction {
        switch state {
        case .running(let deadline, _):
            generation &+= 1
            state = .cancelled(remaining: max(.zero, now.saturatingDuration(to: deadline)))
            return .stopTimer
        case .idle(let remaining), .paused(let remaining):
            state = .cancelled(remaining: remaining)
            return .none
        case .finished, .cancelled:
            return .none
        }
    }

    /// Adds `extra` (positive, validated by the owner) to the time left.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` when the time left would exceed
    ///   292 years (`Int64.max` ns); the machine is then unchanged.
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
        case .running:
            return .rearm(beginRun(deadline: now + (left + extra), now: now))
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

    /// A tick of the timer came at `now`. A tick before the current run's first boundary is of an older run (a tick
    /// claimed before the timer was re-armed): the timer never runs early, so a tick of this run comes at or after it.
    package mutating func boundaryReached(now: TimerInstant) -> BoundaryAction {
        guard case .running(let deadline, let firstTick) = state, now >= firstTick else { return .none }
        let left = now.saturatingDuration(to: deadline)
        // Show the boundary the tick stands for (a whole number of periods), not the few microseconds less
        // that a real clock reads by the time the handler runs, which truncation would turn into one less.
        guard left <= .zero else {
            let value = period * Int(clamping: Self.periodsRoundedUp(left, period))
            if let lastTick, value >= lastTick { return .none }
            lastTick = value
            return .tick(value)
        }
        generation &+= 1
        state = .finished
        return .finish
    }

    // MARK: Helpers

    private mutating func beginRun(deadline: TimerInstant, now: TimerInstant) -> Arm {
        generation &+= 1
        lastTick = nil
        let delay = Self.firstTickDelay(to: deadline, now: now, period: period)
        state = .running(deadline: deadline, firstTick: now + delay)
        return Arm(generation: generation, deadline: deadline, delay: delay, firstTick: now + delay)
    }

    /// The delay from `now` to the first display boundary `deadline - m · period` after now (zero when the
    /// deadline has passed). ``add(_:now:)`` and restoring keep the time left within
    /// 292 years (`Int64.max` ns), so the delay is a valid first-tick delay.
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
