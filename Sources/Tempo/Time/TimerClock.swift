/// The clock a timer measures its deadlines on.
///
/// | Clock | Linux | Apple platforms | While the machine sleeps |
/// | --- | --- | --- | --- |
/// | ``monotonic`` | `CLOCK_MONOTONIC` | `CLOCK_UPTIME_RAW` (the clock behind `DispatchTime`) | stops |
/// | ``continuous`` | `CLOCK_BOOTTIME` | `CLOCK_MONOTONIC_RAW` (`mach_continuous_time`) | keeps counting |
/// | ``wall`` | `CLOCK_REALTIME` | `CLOCK_REALTIME` | keeps counting, and follows the calendar when it is set |
///
/// - ``monotonic``: a 10-minute timer started before a 1-hour sleep fires 10 minutes of *awake* time later.
///   Use it for animation, polling and anything that measures work done.
/// - ``continuous``: the same timer fires as soon as the machine wakes, because 10 minutes have passed.
///   Use it for timeouts and countdowns that a person reads off a clock on the wall.
/// - ``wall``: deadlines are calendar instants (nanoseconds since 1970-01-01 UTC). When the system clock
///   is set forward or back, a timer set for 09:00 still fires when the clock reads 09:00.
///
/// The Apple rows describe the mapping the code uses; Tempo's tests run on Linux only.
///
/// `TimerClock` is a value type and is `Sendable`.
public enum TimerClock: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Time since boot, stopped while the machine sleeps.
    case monotonic
    /// Time since boot, counting through sleep.
    case continuous
    /// Calendar time (UTC since 1970), which jumps when the system clock is set.
    case wall

    /// `monotonic`, `continuous` or `wall`.
    public var description: String {
        switch self {
        case .monotonic: "monotonic"
        case .continuous: "continuous"
        case .wall: "wall"
        }
    }
}

extension TimerClock {
    /// The clock's position in `allCases` (0, 1, 2): its row in a table kept per clock.
    package var index: Int {
        switch self {
        case .monotonic: 0
        case .continuous: 1
        case .wall: 2
        }
    }
}
