#if os(Linux)
import CTempoShims
import Glibc

/// One timerfd on the clock's kernel clock, read by a dedicated thread with 1 ns timer slack.
///
/// The kernel's hrtimer fires the timerfd at its absolute expiry; `arm(at:)` may be called from any
/// thread (the caller holds the driver's lock) and a blocked `read` honours the new expiry at once, so an
/// earlier deadline armed from another thread needs no extra wakeup. A `wall` timerfd is armed with
/// `TFD_TIMER_CANCEL_ON_SET`, so setting the system clock wakes the thread to re-check its deadlines.
final class PlatformAlarm: Sendable {
    private let fd: Int32
    private let clock: TimerClock

    init(clock: TimerClock, onWake: @escaping @Sendable () -> Void) {
        self.clock = clock
        let fd = ctempo_timerfd_create(Int32(PlatformClock.clockID(clock)))
        precondition(fd >= 0, "timerfd_create failed for the \(clock) clock (errno \(ctempo_errno()))")
        self.fd = fd
        let name = "tempo.\(clock)"
        DriverThread.start(name: name) {
            _ = ctempo_set_timer_slack(1)
            var expirations: UInt64 = 0
            while true {
                let result = read(fd, &expirations, MemoryLayout<UInt64>.size)
                if result < 0 && ctempo_errno() == EINTR { continue }
                onWake()
            }
        }
    }

    /// Arms the alarm at `instant`, or disarms it for `nil`.
    func arm(at instant: TimerInstant?) {
        guard let instant else {
            _ = ctempo_timerfd_arm(fd, 0, 0, clock == .wall ? 1 : 0)
            return
        }
        // 0/0 means "disarm" to the kernel: a deadline at or before the origin becomes 1 ns.
        let nanoseconds = max(instant.nanosecondsRoundedUp, 1)
        _ = ctempo_timerfd_arm(fd, nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000, clock == .wall ? 1 : 0)
    }
}
#endif
