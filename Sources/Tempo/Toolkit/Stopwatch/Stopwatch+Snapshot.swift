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

    /// Records the stopwatch for ``init(restoring:scheduler:clock:)``.
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
    /// that gap counts as zero. A paused stopwatch comes back paused with its elapsed time, an idle one idle.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - scheduler: Where time is read.
    ///   - clock: The clock to count on from now (default ``TimerClock/monotonic``).
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidArgument`` when the elapsed time, the lap mark or a lap
    ///   is negative, the lap mark exceeds the elapsed time, or an idle snapshot has elapsed time; with
    ///   ``TempoError/Code/invalidInstant`` when a running snapshot has no `wallTaken`.
    public convenience init(
        restoring snapshot: Snapshot,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        clock: TimerClock = .monotonic
    ) throws(TempoError) {
        try Self.validate(snapshot)
        self.init(scheduler: scheduler, clock: clock)
        var elapsed = snapshot.elapsed
        if snapshot.phase == .running {
            guard let wallTaken = snapshot.wallTaken else {
                throw TempoError(
                    .invalidInstant, value: "nil",
                    message: "a running stopwatch's snapshot needs its wall-clock instant")
            }
            elapsed += max(.zero, scheduler.now(.wall) - wallTaken)
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
        guard snapshot.elapsed >= .zero else {
            throw reject(snapshot.elapsed, "a snapshot's elapsed time must not be negative, got \(snapshot.elapsed)")
        }
        guard snapshot.lapMark >= .zero, snapshot.lapMark <= snapshot.elapsed else {
            throw reject(
                snapshot.lapMark,
                "a snapshot's lap mark must be between 0 and its elapsed time \(snapshot.elapsed), got \(snapshot.lapMark)"
            )
        }
        if let lap = snapshot.laps.first(where: { $0 < .zero }) {
            throw reject(lap, "a snapshot's laps must not be negative, got \(lap)")
        }
        guard snapshot.phase != .idle || (snapshot.elapsed == .zero && snapshot.laps.isEmpty) else {
            throw reject(
                snapshot.elapsed, "an idle snapshot must have no elapsed time or laps, got \(snapshot.elapsed)")
        }
    }
}
