/// When a timer ticks, and the options every arming takes: one value, accepted the same way by ``TempoTimer``,
/// ``TimerRegistry`` and ``SharedTicker``.
///
/// ```swift
/// let poll = try TempoTimer(.every(.seconds(5), leeway: .milliseconds(100))) { tick in print(tick) }.start()
/// let once = try TempoTimer(.after(.seconds(30))) { _ in print("timed out") }.start()
/// ```
///
/// Three shapes:
/// - ``every(_:repeats:first:leeway:latePolicy:delivery:clock:)``: anchored repeating ticks; tick `k` is due at
///   `first + (k - 1) · interval`.
/// - ``after(_:leeway:delivery:clock:)``: a true one-shot, due a delay after start. It has no interval
///   (``interval`` is `nil`); ``TempoTimer/reset(interval:)`` starts the delay over.
/// - ``at(_:ifPast:leeway:delivery:)``: a one-shot due at a ``TimerDeadline``, whose clock becomes the timer's
///   clock, so a `Date` arms the wall clock and a `DispatchTime` the monotonic one without a `clock:` argument.
///
/// `TimerSchedule` is a value type and is `Sendable`; it is validated where it is used (the timer's initializer,
/// the registry's `schedule`), which throws ``TempoError`` naming the bad value.
public struct TimerSchedule: Sendable {
    enum Kind: Sendable {
        case every(Duration, TimerRepeats, FirstTick)
        case after(Duration)
        case at(TimerInstant, PastDeadlinePolicy)
    }

    let kind: Kind
    /// How late past its due instant a tick may run so that wakeups can be batched; zero by default.
    public var leeway: Duration
    /// What happens to ticks missed while the timer could not run (one-shots have nothing to miss).
    public var latePolicy: LateTickPolicy
    /// Where handlers run (a ``TimerHandler/mainActor(_:)`` handler runs on the main actor whatever this says, and
    /// accepts only the default or the main queue here).
    public var delivery: TimerDelivery
    /// The clock deadlines are measured on.
    public let clock: TimerClock
    /// The name instruments, stall reports and log lines give the timer (see ``labeled(_:fileID:line:)``); `nil` by
    /// default.
    public var label: TimerLabel? = nil

    /// Anchored ticks every `interval`.
    ///
    /// - Parameters:
    ///   - interval: The period between ticks.
    ///   - repeats: ``TimerRepeats/times(_:)`` or ``TimerRepeats/forever`` (default). ``TimerRepeats/once`` makes
    ///     the one-shot that ``after(_:leeway:delivery:clock:)`` makes (due `first` after start, or one `interval`
    ///     after it), or ``at(_:ifPast:leeway:delivery:)`` for a ``FirstTick/at(_:)`` deadline: the timer then
    ///     reports that one-shot schedule, with no interval.
    ///   - first: When the first tick is due (default one interval after start).
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks (default ``LateTickPolicy/coalesce``).
    ///   - delivery: Where handlers run (default ``TimerDelivery/privateQueue``).
    ///   - clock: The clock deadlines are measured on: by default the clock of a ``FirstTick/at(_:)`` deadline, or
    ///     ``TimerClock/monotonic``. A different clock than that deadline's is rejected with
    ///     ``TempoError/Code/clockMismatch`` where the schedule is used.
    /// - Returns: The schedule.
    public static func every(
        _ interval: Duration,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock? = nil
    ) -> TimerSchedule {
        var resolved = clock ?? .monotonic
        if clock == nil, case .at(let deadline) = first.kind { resolved = deadline.clock }
        return TimerSchedule(
            kind: .every(interval, repeats, first), leeway: leeway, latePolicy: latePolicy, delivery: delivery,
            clock: resolved)
    }

    /// Anchored ticks every `seconds`, converted exactly (0.5 is 500,000,000 ns): the convenience for an interval
    /// that arrives as a `TimeInterval`.
    ///
    /// - Parameters:
    ///   - seconds: The period between ticks, in seconds.
    ///   - repeats: How many ticks (default forever).
    ///   - clock: The clock deadlines are measured on (default ``TimerClock/monotonic``).
    /// - Returns: The schedule.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for NaN, infinite, zero, negative or
    ///   oversized `seconds` (`Duration.seconds(_:)` would trap on some of them).
    public static func every(
        seconds: Double, repeats: TimerRepeats = .forever, clock: TimerClock = .monotonic
    ) throws(TempoError) -> TimerSchedule {
        .every(try TempoError.interval(seconds: seconds), repeats: repeats, clock: clock)
    }

    /// One tick, `delay` after start: a true one-shot, with no interval.
    ///
    /// A delay follows the one rule for delays, as ``FirstTick/after(_:)`` and ``TempoTimer/reschedule(after:)``
    /// do: any delay from zero to 292 years (`Int64.max` ns); zero ticks at once on ``TempoTimer/start()`` (on
    /// the delivery's next turn, not inside `start()`). A negative or larger delay makes creating the timer throw
    /// ``TempoError`` with ``TempoError/Code/invalidInterval`` naming it.
    ///
    /// - Parameters:
    ///   - delay: The time from start to the tick; zero or more.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on (default ``TimerClock/monotonic``).
    /// - Returns: The schedule.
    public static func after(
        _ delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic
    ) -> TimerSchedule {
        TimerSchedule(kind: .after(delay), leeway: leeway, latePolicy: .coalesce, delivery: delivery, clock: clock)
    }

    /// One tick at `deadline`, on the deadline's own clock.
    ///
    /// - Parameters:
    ///   - deadline: When the tick is due; its clock becomes the timer's clock.
    ///   - ifPast: What to do when `deadline` has already passed when the schedule is armed: fire at once
    ///     (default) or throw ``TempoError`` with ``TempoError/Code/invalidInstant``. A later
    ///     ``TempoTimer/reset(interval:)`` re-arms at the same deadline and, once it has passed, fires at once.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    /// - Returns: The schedule.
    public static func at(
        _ deadline: TimerDeadline,
        ifPast: PastDeadlinePolicy = .fireImmediately,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue
    ) -> TimerSchedule {
        TimerSchedule(
            kind: .at(deadline.instant, ifPast), leeway: leeway, latePolicy: .coalesce, delivery: delivery,
            clock: deadline.clock)
    }

    /// The period between ticks, or `nil` for a one-shot (``after(_:leeway:delivery:clock:)``,
    /// ``at(_:ifPast:leeway:delivery:)``).
    public var interval: Duration? {
        if case .every(let interval, _, _) = kind { return interval }
        return nil
    }

    /// The delay of an ``after(_:leeway:delivery:clock:)`` one-shot, or `nil`.
    public var delay: Duration? {
        if case .after(let delay) = kind { return delay }
        return nil
    }

    /// The deadline of an ``at(_:ifPast:leeway:delivery:)`` one-shot, or `nil`.
    public var deadline: TimerDeadline? {
        if case .at(let instant, _) = kind { return TimerDeadline(instant, clock: clock) }
        return nil
    }

    /// How many ticks: ``TimerRepeats/once`` for a one-shot.
    public var repeats: TimerRepeats {
        if case .every(_, let repeats, _) = kind { return repeats }
        return .once
    }

    /// When the first tick of an ``every(_:repeats:first:leeway:latePolicy:delivery:clock:)`` schedule is due,
    /// or `nil` for a one-shot.
    public var firstTick: FirstTick? {
        if case .every(_, _, let first) = kind { return first }
        return nil
    }

    /// Whether the schedule has a single tick.
    public var isOneShot: Bool { interval == nil }
}
