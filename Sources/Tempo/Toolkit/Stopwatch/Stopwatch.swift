import TempoLocks

/// Measures elapsed time with laps, pause and resume, on the clock you choose, and survives an app relaunch through
/// a `Codable` ``Snapshot``.
///
/// ```swift
/// let stopwatch = Stopwatch(clock: .continuous)
/// stopwatch.start()
/// let first = stopwatch.lap()               // time since start
/// stopwatch.pause()                         // elapsed time stops
/// print(stopwatch.elapsed, stopwatch.laps)
/// ```
///
/// **Clock.** ``elapsed`` is read from ``clock`` each time it is asked, never accumulated from ticks:
/// ``TimerClock/monotonic`` stops while the machine sleeps (it measures awake time, such as work done);
/// ``TimerClock/continuous`` counts through sleep (the time a person waited). ``TimerClock/wall`` follows the
/// calendar, so setting the system clock moves a running stopwatch; avoid it unless that is what you want.
///
/// **Phases.** ``start()`` runs an idle stopwatch from zero; ``pause()`` freezes ``elapsed``; ``resume()`` continues
/// from the frozen value; ``reset()`` returns to idle with no laps. A call that does not apply to the current phase
/// (pausing an idle stopwatch, say) changes nothing and returns `false`.
///
/// **Laps.** ``lap()`` records the elapsed time since the previous lap (or since the start) and returns it; paused
/// time does not count. The laps add up to the elapsed time at the last lap.
///
/// Thread-safety: every method may be called from any thread; reads and changes are atomic under one lock, and the
/// clock is read under that lock, so calls from several threads see the clock in the order they take effect (laps are
/// never negative and ``elapsed`` never goes back while running). No timer is armed, so a stopwatch costs nothing
/// while it runs.
public final class Stopwatch: Sendable {
    /// The phase of a stopwatch.
    ///
    /// An enum, closed: the phases of a stopwatch's lifecycle, which a display switches over exhaustively.
    public enum Phase: String, Hashable, Sendable, Codable {
        /// Not started (or reset): elapsed time is zero.
        case idle
        /// Counting.
        case running
        /// Stopped, with the elapsed time frozen.
        case paused
    }

    struct State {
        var phase = Phase.idle
        /// Elapsed time up to ``runningSince`` (or in total when not running).
        var banked = Duration.zero
        /// The instant the current run began, while running.
        var runningSince = TimerInstant.zero
        /// The elapsed time at the last lap (zero before the first).
        var lapMark = Duration.zero
        var laps: [Duration] = []

        /// The elapsed time at `now`, saturating at the bounds of `Duration` (about 5 × 10¹² years) instead of
        /// trapping.
        func elapsed(at now: TimerInstant) -> Duration {
            guard phase == .running else { return banked }
            let run = runningSince.saturatingDuration(to: now)
            let (sum, overflow) = banked.attoseconds.addingReportingOverflow(run.attoseconds)
            return overflow ? Duration(attoseconds: run > .zero ? .max : .min) : Duration(attoseconds: sum)
        }
    }

    /// The clock elapsed time is measured on.
    public let clock: TimerClock
    let scheduler: any TimerScheduler
    let state = TempoMutex(State())

    /// Creates an idle stopwatch.
    ///
    /// - Parameters:
    ///   - clock: The clock (default ``TimerClock/monotonic``).
    ///   - scheduler: Where time is read: ``SystemScheduler/shared`` or, in tests, a `VirtualClock`.
    public init(clock: TimerClock = .monotonic, scheduler: any TimerScheduler = SystemScheduler.shared) {
        self.scheduler = scheduler
        self.clock = clock
    }

    /// The phase.
    public var phase: Phase {
        state.withLock { $0.phase }
    }

    /// The time counted so far: running time only, read from ``clock`` now.
    ///
    /// Never traps: past the bounds of `Duration` (about 5 × 10¹² years, reachable only on a virtual clock) it
    /// saturates. A stopwatch whose elapsed time exceeds 292 years (`Int64.max` ns) (292 years) still counts,
    /// but its ``snapshot()`` is refused by ``init(restoring:clock:scheduler:)``.
    public var elapsed: Duration {
        state.withLock { $0.elapsed(at: scheduler.now(clock)) }
    }

    /// The recorded laps, oldest first.
    public var laps: [Duration] {
        state.withLock { $0.laps }
    }

    /// Starts an idle stopwatch from zero.
    ///
    /// - Returns: `true` if it was idle and now runs; `false` otherwise (nothing changes).
    @discardableResult
    public func start() -> Bool {
        state.withLock { state in
            guard state.phase == .idle else { return false }
            let now = scheduler.now(clock)
            state.phase = .running
            state.runningSince = now
            return true
        }
    }

    /// Freezes the elapsed time.
    ///
    /// - Returns: `true` if it was running and is now paused; `false` otherwise.
    @discardableResult
    public func pause() -> Bool {
        state.withLock { state in
            guard state.phase == .running else { return false }
            state.banked = state.elapsed(at: scheduler.now(clock))
            state.phase = .paused
            return true
        }
    }

    /// Continues a paused stopwatch from its frozen elapsed time.
    ///
    /// - Returns: `true` if it was paused and now runs; `false` otherwise.
    @discardableResult
    public func resume() -> Bool {
        state.withLock { state in
            guard state.phase == .paused else { return false }
            state.phase = .running
            state.runningSince = scheduler.now(clock)
            return true
        }
    }

    /// Records a lap: the elapsed time since the previous lap, or since the start.
    ///
    /// - Returns: The lap, or `nil` when the stopwatch is idle (nothing is recorded).
    @discardableResult
    public func lap() -> Duration? {
        state.withLock { state -> Duration? in
            guard state.phase != .idle else { return nil }
            let elapsed = state.elapsed(at: scheduler.now(clock))
            // Saturating, as `elapsed` does: after the wall clock was set back a lap can be negative.
            let (difference, overflow) = elapsed.attoseconds.subtractingReportingOverflow(state.lapMark.attoseconds)
            let lap =
                overflow
                ? Duration(attoseconds: state.lapMark < .zero ? .max : .min) : Duration(attoseconds: difference)
            state.lapMark = elapsed
            state.laps.append(lap)
            return lap
        }
    }

    /// Returns to idle: elapsed time zero, no laps.
    public func reset() {
        state.withLock { $0 = State() }
    }
}
