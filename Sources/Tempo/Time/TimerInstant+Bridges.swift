public import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bridges between ``TimerInstant`` and the instant types of Dispatch, the standard library and Foundation.
///
/// A `TimerInstant` does not say which ``TimerClock`` it belongs to; each bridge names the clock its instants
/// belong to, matching the table in ``TimerClock``:
///
/// | Type | ``TimerClock`` |
/// | --- | --- |
/// | `DispatchTime` | ``TimerClock/monotonic`` |
/// | `SuspendingClock.Instant` | ``TimerClock/monotonic`` |
/// | `ContinuousClock.Instant` | ``TimerClock/continuous`` |
/// | `DispatchWallTime`, `Date` | ``TimerClock/wall`` |
///
/// Tempo's core does not import Foundation, so `Date` goes through its seconds since 1970:
/// `TimerInstant(timeIntervalSince1970: date.timeIntervalSince1970)` and
/// `Date(timeIntervalSince1970: instant.timeIntervalSince1970)`.
extension TimerInstant {
    /// The ``TimerClock/monotonic`` instant of a `DispatchTime` (`DispatchTime.now()` reads the same clock).
    ///
    /// - Parameter time: A dispatch time other than `.distantFuture`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for `.distantFuture`, which is no instant.
    public init(_ time: DispatchTime) throws(TempoError) {
        guard time != .distantFuture else {
            throw TempoError(
                .invalidInstant, value: "DispatchTime.distantFuture",
                message: "DispatchTime.distantFuture is not an instant")
        }
        self.init(offset: .nanoseconds(time.uptimeNanoseconds))
    }

    /// The ``TimerClock/wall`` instant of a `DispatchWallTime` (nanoseconds since 1970).
    ///
    /// libdispatch stores a wall time as its negated nanoseconds since 1970, which this decodes (a test checks
    /// it against the real clock); the "now" marker reads the wall clock.
    ///
    /// - Parameter time: A wall time other than `.distantFuture`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for `.distantFuture`.
    public init(_ time: DispatchWallTime) throws(TempoError) {
        guard time != .distantFuture else {
            throw TempoError(
                .invalidInstant, value: "DispatchWallTime.distantFuture",
                message: "DispatchWallTime.distantFuture is not an instant")
        }
        if time.rawValue == ~UInt64(1) {  // DISPATCH_WALLTIME_NOW
            self = SystemScheduler.shared.now(.wall)
            return
        }
        self.init(offset: .nanoseconds(-Int64(bitPattern: time.rawValue)))
    }

    /// The ``TimerClock/continuous`` instant of a `ContinuousClock.Instant`, exactly.
    ///
    /// - Parameter instant: An instant of `ContinuousClock`.
    public init(_ instant: ContinuousClock.Instant) {
        self.init(offset: InstantBits.offset(of: instant, now: ContinuousClock.now, clock: .continuous))
    }

    /// The ``TimerClock/monotonic`` instant of a `SuspendingClock.Instant`, exactly.
    ///
    /// - Parameter instant: An instant of `SuspendingClock`.
    public init(_ instant: SuspendingClock.Instant) {
        self.init(offset: InstantBits.offset(of: instant, now: SuspendingClock.now, clock: .monotonic))
    }

    /// The ``TimerClock/wall`` instant `seconds` after 1970-01-01 00:00:00 UTC: the bridge from Foundation's
    /// `Date`, as `TimerInstant(timeIntervalSince1970: date.timeIntervalSince1970)`.
    ///
    /// - Parameter seconds: Seconds since 1970 (negative before), as `Date.timeIntervalSince1970` gives them.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for NaN or an infinite value, or one more
    ///   than about 146 years from 1970 (the range a timer's deadline may have).
    public init(timeIntervalSince1970 seconds: Double) throws(TempoError) {
        let limit = TempoError.maximumDuration / 2
        guard seconds.isFinite, abs(seconds) <= 4.7e9, Duration.seconds(seconds) <= limit,
            Duration.seconds(seconds) >= .zero - limit
        else {
            throw TempoError(
                .invalidInstant,
                value: "\(seconds)",
                message: "\(seconds) seconds since 1970 is not finite or is more than \(limit) from 1970"
            )
        }
        self.init(offset: .seconds(seconds))
    }

    /// The seconds since 1970-01-01 00:00:00 UTC of a ``TimerClock/wall`` instant, for
    /// `Date(timeIntervalSince1970: instant.timeIntervalSince1970)`.
    ///
    /// A `Double` keeps about a microsecond of precision for present-day dates.
    public var timeIntervalSince1970: Double {
        offset.inSeconds
    }
}

extension DispatchTime {
    /// The dispatch time of a ``TimerClock/monotonic`` instant, rounded up to whole nanoseconds (never earlier).
    ///
    /// - Parameter instant: An instant of the monotonic clock.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `instant` is not after the clock's
    ///   origin (a dispatch time of 0 means "now") or is beyond `Int64.max` nanoseconds.
    public init(_ instant: TimerInstant) throws(TempoError) {
        let nanoseconds = try InstantBits.positiveNanoseconds(instant, type: "DispatchTime")
        self.init(uptimeNanoseconds: UInt64(nanoseconds))
    }
}

extension DispatchWallTime {
    /// The dispatch wall time of a ``TimerClock/wall`` instant, rounded up to whole nanoseconds (never earlier).
    ///
    /// - Parameter instant: An instant of the wall clock, after 1970-01-01.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `instant` is not after 1970 or is
    ///   beyond `Int64.max` nanoseconds.
    public init(_ instant: TimerInstant) throws(TempoError) {
        let nanoseconds = try InstantBits.positiveNanoseconds(instant, type: "DispatchWallTime")
        self.init(
            timespec: timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000)))
    }
}

extension ContinuousClock.Instant {
    /// The `ContinuousClock` instant of a ``TimerClock/continuous`` instant, exactly.
    ///
    /// - Parameter instant: An instant of the continuous clock.
    public init(_ instant: TimerInstant) {
        self = InstantBits.instant(at: instant.offset, now: ContinuousClock.now, clock: .continuous)
    }
}

extension SuspendingClock.Instant {
    /// The `SuspendingClock` instant of a ``TimerClock/monotonic`` instant, exactly.
    ///
    /// - Parameter instant: An instant of the monotonic clock.
    public init(_ instant: TimerInstant) {
        self = InstantBits.instant(at: instant.offset, now: SuspendingClock.now, clock: .monotonic)
    }
}

/// The arithmetic behind the bridges.
enum InstantBits {
    /// The offset of a standard-library instant from its clock's origin.
    ///
    /// The standard library stores `ContinuousClock.Instant` and `SuspendingClock.Instant` as one `Duration` since
    /// the kernel clock's origin, the same origin as Tempo's clock (a test checks this against `clock_gettime`),
    /// so reading that `Duration` is exact. Should the layout ever differ, the offset is measured against `now`
    /// instead (exact up to the time between two clock reads).
    static func offset<Instant: InstantProtocol>(of instant: Instant, now: Instant, clock: TimerClock) -> Duration
    where Instant.Duration == Duration {
        if MemoryLayout<Instant>.size == MemoryLayout<Duration>.size {
            return unsafeBitCast(instant, to: Duration.self)
        }
        return SystemScheduler.shared.now(clock).offset + now.duration(to: instant)
    }

    /// The standard-library instant at `offset` from its clock's origin; see ``offset(of:now:clock:)``.
    static func instant<Instant: InstantProtocol>(at offset: Duration, now: Instant, clock: TimerClock) -> Instant
    where Instant.Duration == Duration {
        if MemoryLayout<Instant>.size == MemoryLayout<Duration>.size {
            return unsafeBitCast(offset, to: Instant.self)
        }
        return now.advanced(by: offset - SystemScheduler.shared.now(clock).offset)
    }

    /// Whole nanoseconds (rounded up) of an instant after its clock's origin, for Dispatch's unsigned times.
    static func positiveNanoseconds(_ instant: TimerInstant, type: String) throws(TempoError) -> Int64 {
        guard instant.offset > .zero, instant.offset <= TempoError.maximumDuration else {
            throw TempoError(
                .invalidInstant,
                value: "\(instant)",
                message:
                    "\(instant) is not between its clock's origin and \(TempoError.maximumDuration), so it is no \(type)"
            )
        }
        return instant.nanosecondsRoundedUp
    }
}
