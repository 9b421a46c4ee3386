/// A point in time on one of the ``TimerClock``s, stored exactly as a `Duration` since that clock's origin.
///
/// For ``TimerClock/monotonic`` and ``TimerClock/continuous`` the origin is an unspecified moment around
/// boot; for ``TimerClock/wall`` it is 1970-01-01 00:00:00 UTC. Instants of different clocks must not be
/// compared with each other. No precision is lost: the offset keeps Swift's attosecond resolution, and
/// is rounded *up* to whole nanoseconds only when handed to the operating system, so a deadline is never
/// brought forward.
///
/// `TimerInstant` is a value type and is `Sendable`.
public struct TimerInstant: InstantProtocol, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The time since the clock's origin.
    public var offset: Duration

    /// Creates the instant `offset` after the clock's origin.
    ///
    /// - Parameter offset: The time since the clock's origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// The clock's origin.
    public static let zero = TimerInstant(offset: .zero)

    /// The instant `duration` later (or earlier, for a negative duration).
    ///
    /// - Parameter duration: The amount to move by.
    /// - Returns: The moved instant.
    public func advanced(by duration: Duration) -> TimerInstant {
        TimerInstant(offset: offset + duration)
    }

    /// The time from this instant to `other` (negative when `other` is earlier).
    ///
    /// - Parameter other: The later instant.
    /// - Returns: `other - self`.
    public func duration(to other: TimerInstant) -> Duration {
        other.offset - offset
    }

    /// Orders instants by offset.
    ///
    /// Compares the offsets' attoseconds, which inlines to a few integer instructions (`Duration`'s own
    /// comparison is a call): deadline queues compare instants on every arm.
    public static func < (lhs: TimerInstant, rhs: TimerInstant) -> Bool {
        lhs.offset.attoseconds < rhs.offset.attoseconds
    }

    /// Whether two instants have the same offset (compared as attoseconds, like ``<(_:_:)``).
    public static func == (lhs: TimerInstant, rhs: TimerInstant) -> Bool {
        lhs.offset.attoseconds == rhs.offset.attoseconds
    }

    /// The instant `rhs` after `lhs`.
    public static func + (lhs: TimerInstant, rhs: Duration) -> TimerInstant {
        lhs.advanced(by: rhs)
    }

    /// The instant `rhs` before `lhs`.
    public static func - (lhs: TimerInstant, rhs: Duration) -> TimerInstant {
        lhs.advanced(by: .zero - rhs)
    }

    /// The time from `rhs` to `lhs`.
    public static func - (lhs: TimerInstant, rhs: TimerInstant) -> Duration {
        rhs.duration(to: lhs)
    }

    /// The offset, for example `12.5 seconds`.
    public var description: String { "\(offset)" }

    /// The offset in whole nanoseconds, rounded up (so a deadline is never brought forward).
    ///
    /// Offsets beyond `Int64` saturate at `Int64.max` / `Int64.min`.
    package var nanosecondsRoundedUp: Int64 { offset.nanoseconds(rounded: .up) }

    /// The instant `nanoseconds` after the clock's origin, exactly (no `Duration` constructor call).
    @inline(__always)
    package init(nanoseconds: Int64) {
        offset = Duration(attoseconds: Int128(nanoseconds) &* 1_000_000_000)
    }

    /// The offset in whole nanoseconds, rounded down (so a clock reading never counts as later than it is);
    /// saturated to `Int64`.
    package var nanosecondsRoundedDown: Int64 { offset.nanoseconds(rounded: .down) }
}

extension Duration {
    /// The number of whole `interval`s in this duration (floor division), computed exactly on attoseconds.
    @inlinable
    package func wholeMultiples(of interval: Duration) -> Int128 {
        let (q, r) = attoseconds.quotientAndRemainder(dividingBy: interval.attoseconds)
        return (r < 0) ? q - 1 : q
    }
}
