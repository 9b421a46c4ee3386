#if canImport(Darwin)
import Darwin
import Dispatch

/// Reads the real clocks on Apple platforms: the clock mapping, the only part of the Apple path that Tempo's
/// Linux CI cannot run (the Dispatch-source alarm that Apple platforms use is `DispatchAlarm`, which CI runs on
/// Linux too).
///
/// Not run by Tempo's CI, which is Linux-only: this file states the intended mapping. `DispatchTime`'s uptime
/// clock is `CLOCK_UPTIME_RAW`, so monotonic instants are `DispatchTime` uptime nanoseconds as they are.
package enum PlatformClock {
    package static func now(_ clock: TimerClock) -> TimerInstant {
        TimerInstant(nanoseconds: nanoseconds(clock))
    }

    /// The clock's reading in nanoseconds, as ``now(_:)`` reads it.
    package static func nanoseconds(_ clock: TimerClock) -> Int64 {
        let id: clockid_t =
            switch clock {
            case .monotonic: CLOCK_UPTIME_RAW
            case .continuous: CLOCK_MONOTONIC_RAW
            case .wall: CLOCK_REALTIME
            }
        return Int64(clock_gettime_nsec_np(id))
    }
}
#endif

#if canImport(Darwin)
enum PlatformThread {
    /// Gives up the rest of the time slice (used only in short spin-waits).
    static func yield() { sched_yield() }
}
#endif
