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
/// ## The names that say "clock"
/// Each public one is a clock, or a scheduler named after the clock that drives it; the word means a source of time
/// every time:
/// - `TimerClock` (this type) says *which* of the three system clocks a deadline is on; it is what every `clock:`
///   argument of a timer, schedule, wheel or toolkit type takes.
/// - ``TempoClock`` is a Swift `Clock` (for `Task.sleep`, `AsyncTickSequence`) reading one `TimerClock` through a
///   ``TimerScheduler``, so async code runs on virtual time in tests.
/// - ``ClockScheduler`` is a ``TimerScheduler`` driven by any Swift `Clock` (the `clock:` of its initializer is that
///   `Clock`).
/// - TempoTesting's `VirtualClock` is a scheduler and a Swift `Clock` of virtual time.
///
/// The engine's `PlatformClock` and `ClockDriver` are internal.
///
/// `TimerClock` is a value type and is `Sendable`.
///
/// An enum, closed: a custom ``TimerScheduler`` switches over it to read each clock, so a new clock would need every
/// scheduler to learn it, a breaking change however it is spelled.
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
