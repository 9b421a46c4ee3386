extension Countdown {
    /// A `Codable` record of a countdown that a later process can restore, even after a reboot.
    ///
    /// A running countdown is recorded by its deadline on the *wall* clock (the only clock that survives a
    /// restart); a paused or idle one by its frozen remaining time. If the wall clock is set between saving and
    /// restoring, the restored deadline moves with it.
    ///
    /// `Snapshot` is a value type and is `Sendable`.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The phase when the snapshot was taken.
        public var phase: Phase
        /// The full duration of a run.
        public var duration: Duration
        /// The display period.
        public var period: Duration
        /// The time left when the snapshot was taken.
        public var remaining: Duration
        /// For a running countdown, the wall-clock instant at which it reaches zero.
        public var wallDeadline: TimerInstant?

        /// Creates a snapshot (normally you get one from ``Countdown/snapshot()``).
        ///
        /// - Parameters:
        ///   - phase: The phase.
        ///   - duration: The full duration of a run.
        ///   - period: The display period.
        ///   - remaining: The time left.
        ///   - wallDeadline: The wall-clock deadline of a running countdown.
        public init(
            phase: Phase,
            duration: Duration,
            period: Duration,
            remaining: Duration,
            wallDeadline: TimerInstant?
        ) {
            self.phase = phase
            self.duration = duration
            self.period = period
            self.remaining = remaining
            self.wallDeadline = wallDeadline
        }
    }

    /// Records the countdown's phase and deadline for ``init(restoring:leeway:delivery:clock:scheduler:onTick:onFinish:)``.
    ///
    /// - Returns: The snapshot; encode it with any `Encoder`.
    public func snapshot() -> Snapshot {
        let now = scheduler.now(clock)
        let wallNow = scheduler.now(.wall)
        let (phase, remaining) = machine.withLock { ($0.phase, $0.remaining(at: now)) }
        return Snapshot(
            phase: phase,
            duration: duration,
            period: period,
            remaining: remaining,
            wallDeadline: phase == .running ? wallNow + remaining : nil
        )
    }

    /// Rebuilds a countdown from a snapshot, for example in a process started after the one that saved it.
    ///
    /// A running countdown keeps running toward the same wall-clock deadline: its next tick shows the true
    /// remaining time, and if the deadline has passed it finishes as soon as the scheduler runs (on a
    /// `VirtualClock`, at the next `advance`), calling `onFinish` once. A paused countdown comes back paused
    /// with its remaining time, an idle one idle; a finished or cancelled one in that phase.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - leeway: How late a tick may run.
    ///   - delivery: Where the callbacks run.
    ///   - clock: The clock to count on from now (default ``TimerClock/continuous``).
    ///   - scheduler: The scheduler.
    ///   - onTick: Called with the remaining time at each display boundary.
    ///   - onFinish: Called once when the time is up.
    /// The remaining time may exceed the duration (``Countdown/add(_:)`` grows it), so it is checked against
    /// 292 years (`Int64.max` ns), not against `duration`.
    ///
    /// - Throws: ``TempoError`` when the snapshot's duration or period is invalid, its remaining time is
    ///   negative or above 292 years (`Int64.max` ns), or a running snapshot has no deadline or one more than
    ///   292 years (`Int64.max` ns) in the future.
    public convenience init(
        restoring snapshot: Snapshot,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .continuous,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        onTick: @escaping TickHandler,
        onFinish: @escaping FinishHandler
    ) throws(TempoError) {
        try self.init(
            duration: snapshot.duration, every: snapshot.period, leeway: leeway, delivery: delivery, clock: clock,
            scheduler: scheduler, onTick: onTick, onFinish: onFinish)
        guard snapshot.remaining >= .zero, snapshot.remaining <= TempoError.maximumDuration else {
            throw TempoError(
                .invalidArgument,
                value: snapshot.remaining.exactDescription,
                message:
                    "a snapshot's remaining time must be between 0 and \(TempoError.maximumDuration.exactDescription), got \(snapshot.remaining.exactDescription)"
            )
        }
        let now = scheduler.now(clock)
        let wallNow = scheduler.now(.wall)
        var deadline = now
        if snapshot.phase == .running {
            guard let wallDeadline = snapshot.wallDeadline else {
                throw TempoError(
                    .invalidInstant,
                    value: "nil",
                    message: "a running countdown's snapshot needs a wall-clock deadline"
                )
            }
            let left = wallNow.saturatingDuration(to: wallDeadline)
            guard left <= TempoError.maximumDuration else {
                throw TempoError(
                    .invalidInstant,
                    value: "\(wallDeadline)",
                    message: """
                        a running countdown's wall-clock deadline \(wallDeadline) is more than \
                        \(TempoError.maximumDuration) after now (\(wallNow))
                        """
                )
            }
            // A deadline in the past finishes at the first chance (how far past does not matter).
            deadline = now + max(.zero, left)
        }
        let remaining = snapshot.remaining
        perform(machine.withLock { $0.restore(snapshot.phase, remaining: remaining, deadline: deadline, now: now) })
    }
}
