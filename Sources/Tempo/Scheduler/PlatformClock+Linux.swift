#if os(Linux)
import CTempoShims
import Glibc

/// Reads the real clocks on Linux.
package enum PlatformClock {
    static func clockID(_ clock: TimerClock) -> clockid_t {
        switch clock {
        case .monotonic: clockid_t(ctempo_clock_monotonic())
        case .continuous: clockid_t(ctempo_clock_boottime())
        case .wall: clockid_t(ctempo_clock_realtime())
        }
    }

    /// The kernel's number for the clock (`clockid_t`), for callers outside this module.
    package static func clockNumber(_ clock: TimerClock) -> Int32 { Int32(clockID(clock)) }

    package static func now(_ clock: TimerClock) -> TimerInstant {
        var spec = timespec()
        clock_gettime(clockID(clock), &spec)
        return TimerInstant(offset: .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec)))
    }
}

enum PlatformThread {
    /// Gives up the rest of the time slice (used only in short spin-waits).
    static func yield() { sched_yield() }
}
#endif
