#if os(Linux)
import CTempoShims
import Glibc

/// Reads the real clocks on Linux.
enum PlatformClock {
    static func clockID(_ clock: TimerClock) -> clockid_t {
        switch clock {
        case .monotonic: clockid_t(ctempo_clock_monotonic())
        case .continuous: clockid_t(ctempo_clock_boottime())
        case .wall: clockid_t(ctempo_clock_realtime())
        }
    }

    static func now(_ clock: TimerClock) -> TimerInstant {
        var spec = timespec()
        clock_gettime(clockID(clock), &spec)
        return TimerInstant(offset: .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec)))
    }
}

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

/// A detached pthread running a closure forever.
enum DriverThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func start(name: String, _ run: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread,
            nil,
            { raw in
                let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
                body.run()
                return nil
            },
            context
        )
        precondition(status == 0, "pthread_create failed with \(status)")
        pthread_detach(thread)
    }
}
#endif

#if os(Linux)
enum PlatformThread {
    /// Gives up the rest of the time slice (used only in short spin-waits).
    static func yield() { sched_yield() }
}
#endif
