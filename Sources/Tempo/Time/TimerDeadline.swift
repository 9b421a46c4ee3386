public import Dispatch

/// A point in time that knows its clock: a ``TimerInstant`` and the ``TimerClock`` it belongs to.
///
/// A bare ``TimerInstant`` is an offset from *some* clock's origin: armed on the wrong clock, a date's seconds since
/// 1970 would be read as 56 years of uptime and never fire. A `TimerDeadline` is made from a value whose clock is
/// known, so the schedule that takes it (``TimerSchedule/at(_:ifPast:leeway:delivery:)``) arms the right clock
/// itself:
///
/// | Made from | Clock |
/// | --- | --- |
/// | `Date` (``init(timeIntervalSince1970:)``), `DispatchWallTime` | ``TimerClock/wall`` |
/// | `DispatchTime`, `SuspendingClock.Instant` | ``TimerClock/monotonic`` |
/// | `ContinuousClock.Instant` | ``TimerClock/continuous`` |
/// | a ``TimerInstant`` | the clock you name: ``monotonic(_:)``, ``continuous(_:)``, ``wall(_:)`` |
///
/// A deadline given where a clock is fixed (the first tick of a repeating schedule on another clock, a
/// ``TempoTimer/reschedule(at:)`` of a timer on another clock) throws ``TempoError`` with
/// ``TempoError/Code/clockMismatch``, naming both clocks.
///
/// `TimerDeadline` is a value type and is `Sendable`.
public struct TimerDeadline: Hashable, Sendable, CustomStringConvertible {
    /// The instant, as an offset from the origin of ``clock``.
    public let instant: TimerInstant
    /// The clock ``instant`` belongs to.
    public let clock: TimerClock

    /// The deadline at `instant` of `clock`.
    ///
    /// - Parameters:
    ///   - instant: An instant of `clock`.
    ///   - clock: The clock `instant` was read from.
    public init(_ instant: TimerInstant, clock: TimerClock) {
        self.instant = instant
        self.clock = clock
    }

    /// An instant of the ``TimerClock/monotonic`` clock (the clock `VirtualClock.now(.monotonic)` and
    /// `SystemScheduler.shared.now(.monotonic)` read).
    ///
    /// - Parameter instant: An instant of the monotonic clock.
    /// - Returns: The deadline.
    public static func monotonic(_ instant: TimerInstant) -> TimerDeadline {
        TimerDeadline(instant, clock: .monotonic)
    }

    /// An instant of the ``TimerClock/continuous`` clock.
    ///
    /// - Parameter instant: An instant of the continuous clock.
    /// - Returns: The deadline.
    public static func continuous(_ instant: TimerInstant) -> TimerDeadline {
        TimerDeadline(instant, clock: .continuous)
    }

    /// An instant of the ``TimerClock/wall`` clock (its offset is the time since 1970-01-01 00:00:00 UTC).
    ///
    /// - Parameter instant: An instant of the wall clock.
    /// - Returns: The deadline.
    public static func wall(_ instant: TimerInstant) -> TimerDeadline {
        TimerDeadline(instant, clock: .wall)
    }

    /// The ``TimerClock/wall`` deadline `seconds` after 1970-01-01 00:00:00 UTC: a `Date`, as
    /// `TimerDeadline(timeIntervalSince1970: date.timeIntervalSince1970)`.
    ///
    /// - Parameter seconds: Seconds since 1970 (negative before).
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for NaN, an infinite value, or one more
    ///   than about 146 years from 1970.
    public init(timeIntervalSince1970 seconds: Double) throws(TempoError) {
        self.init(try TimerInstant(timeIntervalSince1970: seconds), clock: .wall)
    }

    /// The ``TimerClock/monotonic`` deadline of a `DispatchTime` (`DispatchTime.now()` reads that clock).
    ///
    /// - Parameter time: A dispatch time other than `.distantFuture`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for `.distantFuture`.
    public init(_ time: DispatchTime) throws(TempoError) {
        self.init(try TimerInstant(time), clock: .monotonic)
    }

    /// The ``TimerClock/wall`` deadline of a `DispatchWallTime`.
    ///
    /// - Parameter time: A wall time other than `.distantFuture`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for `.distantFuture`.
    public init(_ time: DispatchWallTime) throws(TempoError) {
        self.init(try TimerInstant(time), clock: .wall)
    }

    /// The ``TimerClock/continuous`` deadline of a `ContinuousClock.Instant`, exactly.
    ///
    /// - Parameter instant: An instant of `ContinuousClock`.
    public init(_ instant: ContinuousClock.Instant) {
        self.init(TimerInstant(instant), clock: .continuous)
    }

    /// The ``TimerClock/monotonic`` deadline of a `SuspendingClock.Instant`, exactly.
    ///
    /// - Parameter instant: An instant of `SuspendingClock`.
    public init(_ instant: SuspendingClock.Instant) {
        self.init(TimerInstant(instant), clock: .monotonic)
    }

    /// For example `12.5 seconds on the wall clock`.
    public var description: String { "\(instant) on the \(clock) clock" }

    /// The instant, when `expected` is its clock.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/clockMismatch`` naming both clocks otherwise.
    func instant(on expected: TimerClock) throws(TempoError) -> TimerInstant {
        guard clock == expected else {
            throw TempoError(
                .clockMismatch, value: "\(self)",
                message: "deadline \(self) cannot be armed on the \(expected) clock")
        }
        return instant
    }
}
