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
        // Exact integer arithmetic on attoseconds, inlined (`Duration`'s `+` and unit constructors are calls): a
        // `timespec` is below 2^63 seconds and 10^9 nanoseconds, so neither product nor the sum can overflow.
        let attoseconds = Int128(spec.tv_sec) &* 1_000_000_000_000_000_000 &+ Int128(spec.tv_nsec) &* 1_000_000_000
        return TimerInstant(offset: Duration(attoseconds: attoseconds))
    }
}

extension PlatformClock {
    /// The clock's reading in nanoseconds (below 2^63: a clock of the platform counts from boot or from 1970).
    @inline(__always)
    package static func nanoseconds(_ clock: TimerClock) -> Int64 {
        var spec = timespec()
        clock_gettime(clockID(clock), &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

enum PlatformThread {
    /// Gives up the rest of the time slice (used only in short spin-waits).
    static func yield() { sched_yield() }
}
#endif
