extension Stopwatch {
    /// A `Codable` record of a stopwatch that a later process can restore, even after a reboot.
    ///
    /// It holds the elapsed time and laps when it was taken and, for a running stopwatch, the wall-clock instant it
    /// was taken at: the wall clock is the only one that survives a restart (monotonic and continuous time restart
    /// from zero at boot).
    ///
    /// `Snapshot` is a value type and is `Sendable`.
    public struct Snapshot: Hashable, Sendable, Codable {
        /// The phase when the snapshot was taken.
        public var phase: Phase
        /// The elapsed time when the snapshot was taken.
        public var elapsed: Duration
        /// The laps, oldest first.
        public var laps: [Duration]
        /// The elapsed time at the last lap (zero before the first).
        public var lapMark: Duration
        /// For a running stopwatch, the wall-clock instant the snapshot was taken at.
        public var wallTaken: TimerInstant?

        /// Creates a snapshot (normally you get one from ``Stopwatch/snapshot()``).
        ///
        /// - Parameters:
        ///   - phase: The phase.
        ///   - elapsed: The elapsed time.
        ///   - laps: The laps.
        ///   - lapMark: The elapsed time at the last lap.
        ///   - wallTaken: The wall-clock instant of a running stopwatch's snapshot.
        public init(phase: Phase, elapsed: Duration, laps: [Duration], lapMark: Duration, wallTaken: TimerInstant?) {
            self.phase = phase
            self.elapsed = elapsed
            self.laps = laps
            self.lapMark = lapMark
            self.wallTaken = wallTaken
        }
    }

    /// Records the stopwatch for ``init(restoring:clock:scheduler:)``.
    ///
    /// - Returns: The snapshot; encode it with any `Encoder`.
    public func snapshot() -> Snapshot {
        state.withLock { state in
            Snapshot(
                phase: state.phase, elapsed: state.elapsed(at: scheduler.now(clock)), laps: state.laps,
                lapMark: state.lapMark, wallTaken: state.phase == .running ? scheduler.now(.wall) : nil)
        }
    }

    /// Rebuilds a stopwatch from a snapshot, for example in a process started after the one that saved it.
    ///
    /// A running stopwatch keeps running: the time between the snapshot and this call is measured on the wall clock
    /// (whatever `clock` is, since no other clock spans a restart) and added to its elapsed time; from then on it
    /// counts on `clock`. If the wall clock now reads earlier than when the snapshot was taken (it was set back),
    /// that gap counts as zero. A paused stopwatch comes back paused with its elapsed time, an idle one idle; their
    /// `wallTaken` is not read.
    ///
    /// Every field is checked, so that no snapshot, however corrupt (a file edited by hand, a value at the limit of
    /// its type), traps here or in a later read: a bad one throws and no stopwatch is made.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - clock: The clock to count on from now (default ``TimerClock/monotonic``).
    ///   - scheduler: Where time is read.
    /// - Throws: ``TempoError`` naming the value, with ``TempoError/Code/invalidArgument`` when the elapsed time is
    ///   negative or above 292 years (`Int64.max` ns), the lap mark is negative or exceeds the elapsed time, a
    ///   lap is negative, the laps do not add up to the lap mark, or an idle snapshot has elapsed time or laps; with
    ///   ``TempoError/Code/invalidInstant`` when a running snapshot has no `wallTaken`, or one more than
    ///   292 years (`Int64.max` ns) after now, or so long before now that the elapsed time would exceed
    ///   292 years (`Int64.max` ns).
    public convenience init(
        restoring snapshot: Snapshot,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws(TempoError) {
        try Self.validate(snapshot)
        self.init(clock: clock, scheduler: scheduler)
        var elapsed = snapshot.elapsed
        if snapshot.phase == .running {
            guard let wallTaken = snapshot.wallTaken else {
                throw TempoError(
                    .invalidInstant, value: "nil",
                    message: "a running stopwatch's snapshot needs its wall-clock instant")
            }
            elapsed += try Self.gap(since: wallTaken, now: scheduler.now(.wall), elapsed: elapsed)
        }
        let now = scheduler.now(clock)
        state.withLock { state in
            state.phase = snapshot.phase
            state.banked = elapsed
            state.runningSince = now
            state.lapMark = snapshot.lapMark
            state.laps = snapshot.laps
        }
    }

    private static func validate(_ snapshot: Snapshot) throws(TempoError) {
        func reject(_ value: Duration, _ message: String) -> TempoError {
            TempoError(.invalidArgument, value: value.exactDescription, message: message)
        }
        let maximum = TempoError.maximumDuration
        guard snapshot.elapsed >= .zero, snapshot.elapsed <= maximum else {
            throw reject(
                snapshot.elapsed,
                """
                a snapshot's elapsed time must be between 0 and \(maximum.exactDescription), got \
                \(snapshot.elapsed.exactDescription)
                """)
        }
        guard snapshot.lapMark >= .zero, snapshot.lapMark <= snapshot.elapsed else {
            throw reject(
                snapshot.lapMark,
                """
                a snapshot's lap mark must be between 0 and its elapsed time \(snapshot.elapsed.exactDescription), \
                got \(snapshot.lapMark.exactDescription)
                """)
        }
        // Each lap is at most the lap mark (they add up to it), so the sum is checked without overflow.
        var sum = Duration.zero
        for lap in snapshot.laps {
            guard lap >= .zero, lap <= snapshot.lapMark - sum else {
                throw reject(
                    lap,
                    """
                    a snapshot's laps must not be negative and must add up to its lap mark \
                    \(snapshot.lapMark.exactDescription), got lap \(lap.exactDescription)
                    """)
            }
            sum += lap
        }
        guard sum == snapshot.lapMark else {
            throw reject(
                sum,
                """
                a snapshot's laps must add up to its lap mark \(snapshot.lapMark.exactDescription), got \
                \(sum.exactDescription)
                """)
        }
        guard snapshot.phase != .idle || (snapshot.elapsed == .zero && snapshot.laps.isEmpty) else {
            throw reject(
                snapshot.elapsed,
                "an idle snapshot must have no elapsed time or laps, got \(snapshot.elapsed.exactDescription)")
        }
    }

    /// The time from `wallTaken` to `now` on the wall clock, zero when the clock was set back.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `wallTaken` is more than
    ///   292 years (`Int64.max` ns) after `now`, or so long before it that `elapsed` plus the gap would exceed
    ///   292 years (`Int64.max` ns).
    private static func gap(since wallTaken: TimerInstant, now: TimerInstant, elapsed: Duration) throws(TempoError)
        -> Duration
    {
        let maximum = TempoError.maximumDuration
        let gap = wallTaken.saturatingDuration(to: now)
        guard gap >= .zero - maximum else {
            throw TempoError(
                .invalidInstant, value: "\(wallTaken)",
                message: """
                    a running snapshot's wall-clock instant \(wallTaken) is more than \(maximum) after now (\(now))
                    """)
        }
        guard gap <= maximum - elapsed else {
            throw TempoError(
                .invalidInstant, value: "\(wallTaken)",
                message: """
                    a running snapshot's wall-clock instant \(wallTaken) is so long before now (\(now)) that its \
                    elapsed time \(elapsed.exactDescription) would exceed \(maximum.exactDescription)
                    """)
        }
        return max(.zero, gap)
    }
}
