#if os(Linux)
import CTempoShims
import Glibc
import Synchronization

/// One timerfd on the clock's kernel clock, waited on by one of two threads with 1 ns timer slack.
///
/// The kernel's hrtimer fires the timerfd at its absolute expiry; `arm(at:)` may be called from any thread (the
/// caller holds the driver's lock) and a blocked `read` honours the new expiry at once, so an earlier deadline
/// armed from another thread needs no extra wakeup. A `wall` timerfd is armed with `TFD_TIMER_CANCEL_ON_SET`, so
/// setting the system clock wakes the thread to re-check its deadlines.
///
/// Two threads share the clock: the *waiter* reads the timerfd and runs what is due; the *deputy* sleeps on a second
/// timerfd that ``arm(atNanoseconds:)`` sets ``handoverDelay`` after the main one. The waiter runs the handlers of a
/// wake before it re-arms (see `ClockDriver.wake`), so while they run, the deputy's timer stands at this wake's
/// deadline + ``handoverDelay``. If the waiter is still busy in ``guarded(_:)`` when it expires, the deputy becomes the
/// waiter and the old waiter becomes the deputy when it returns. A slow or blocked handler thus delays the clock's
/// other timers by about ``handoverDelay`` at most. Without a slow handler the deputy never wakes: one wakeup per due
/// deadline, and one more `timerfd_settime` per arm, made after the handlers ran.
///
/// **Periodic re-arming.** On the monotonic and continuous clocks the main timerfd is armed with an interval: the
/// distance from the wake that just passed to the new one. The kernel re-arms a periodic timerfd itself when a read
/// consumes an expiry, at the first multiple of the interval after the read; so when the next wake asked for is that
/// instant (a repeating timer in its steady state), ``arm(atNanoseconds:)`` makes no system call for the main timerfd,
/// and a tick costs one `timerfd_settime` (the deputy's) instead of two. See ``Reload`` for when the call is skipped; a
/// wrong guess costs at most one wake for nothing, which the driver already tolerates (a cancel leaves the kernel timer
/// as it is). The wall clock is always armed once (`TFD_TIMER_CANCEL_ON_SET` needs a fresh arm after the clock was
/// set).
final class TimerfdAlarm: SchedulerAlarm {
    /// The main timerfd's setting, as far as ``arm(atNanoseconds:)`` needs it to know when the kernel fires next by
    /// itself.
    struct Reload {
        /// The first expiry of the last `timerfd_settime`, in nanoseconds on the clock (0: not armed).
        var base: Int64 = 0
        /// Its interval in nanoseconds (0: once).
        var period: Int64 = 0
        /// The last wake ``arm(atNanoseconds:)`` was asked for, armed or skipped (0: none).
        var last: Int64 = 0

        /// Whether the kernel fires at `wake` with no new setting: `wake` is an expiry of the current setting
        /// (`base + k · period`) and the first one after `now`. The kernel's next expiry is the first of the setting
        /// after the read that consumed the previous one, and that read came before `now`: so it is at most `wake`,
        /// and it is `wake` unless an expiry passed between that read and `now` (then a read returns at once, the
        /// driver finds nothing due and arms again: one wake for nothing).
        func firesByItself(at wake: Int64, now: Int64) -> Bool {
            period > 0 && wake >= base && wake > now && wake - period <= now && (wake - base) % period == 0
        }

        /// The interval to arm `wake` with: the distance from the last wake when that one has passed (a re-arm
        /// after a wake, the steady state of a repeating timer), otherwise 0 (an earlier deadline armed meanwhile).
        func period(for wake: Int64, now: Int64) -> Int64 {
            last > 0 && last <= now && wake > last ? wake - last : 0
        }
    }

    /// Touched only by ``arm(atNanoseconds:)``, which the driver calls under its alarm lock.
    nonisolated(unsafe) private var reload = Reload()

    /// How long guarded code may run before the deputy takes over waiting for deadlines, in nanoseconds (0.5 ms).
    static let handoverDelay: Int64 = 500_000

    /// Whether the deputy is waiting on its timerfd, ready to take over: only then may the waiter run handlers of
    /// the default delivery itself (see ``canRunDeliveriesOnWaiter``).
    private let deputyReady = Atomic<Bool>(false)
    /// Whether the main timerfd is armed for a deadline (set by ``arm(atNanoseconds:)``).
    private let mainArmed = Atomic<Bool>(false)

    private let fd: Int32
    private let deputyFD: Int32
    private let clock: TimerClock
    /// Which of the two threads (0 or 1) is the waiter.
    private let waiter = Atomic<Int>(0)
    /// The thread running guarded code, plus one (0: none). Whoever clears it first decides whether the deputy takes
    /// over; a thread that lost the waiter role clears only its own mark, never the new waiter's.
    private let guardOwner = Atomic<Int>(0)

    /// Creates the timerfd and starts both threads.
    ///
    /// - Parameters:
    ///   - clock: The clock whose kernel clock the timerfd measures.
    ///   - onWake: Called on the waiter thread each time the timerfd fires (or the wall clock was set), with that
    ///     thread's context and the alarm (so that a wake reads no lock to find it).
    ///   - onTakeover: Called on the deputy after it became the waiter, before it waits: the driver re-arms the
    ///     timerfd for deadlines added while the old waiter was busy.
    init(
        clock: TimerClock,
        onWake: @escaping @Sendable (DriverContext, TimerfdAlarm) -> Void,
        onTakeover: @escaping @Sendable () -> Void
    ) {
        self.clock = clock
        let fd = ctempo_timerfd_create(Int32(PlatformClock.clockID(clock)))
        precondition(fd >= 0, "timerfd_create failed for the \(clock) clock (errno \(ctempo_errno()))")
        self.fd = fd
        let deputyFD = ctempo_timerfd_create(ctempo_clock_monotonic())
        precondition(deputyFD >= 0, "timerfd_create failed for the deputy (errno \(ctempo_errno()))")
        self.deputyFD = deputyFD
        // The kernel keeps 15 bytes of a thread's name: "tempo.continuous" is one too many, so the continuous clock's
        // threads are named after its Linux clock, CLOCK_BOOTTIME.
        let name = clock == .continuous ? "tempo.boottime" : "tempo.\(clock)"
        for index in 0..<2 {
            DriverThread.start(name: name) { [self] in
                _ = ctempo_set_timer_slack(1)
                let context = DriverContext(index: index)
                context.install()
                run(index: index, context: context, onWake: onWake, onTakeover: onTakeover)
            }
        }
    }

    private func run(
        index: Int,
        context: DriverContext,
        onWake: @Sendable (DriverContext, TimerfdAlarm) -> Void,
        onTakeover: @Sendable () -> Void
    ) {
        var expirations: UInt64 = 0
        while true {
            if waiter.load(ordering: .acquiring) == index {
                let result = read(fd, &expirations, MemoryLayout<UInt64>.size)
                if result < 0 && ctempo_errno() == EINTR { continue }
                onWake(context, self)
            } else {
                deputyReady.store(true, ordering: .releasing)
                let result = read(deputyFD, &expirations, MemoryLayout<UInt64>.size)
                deputyReady.store(false, ordering: .releasing)
                if result < 0 { continue }
                // The guarded code outlived its delay: take over, unless it finished meanwhile.
                let busy = 1 - index
                if guardOwner.compareExchange(expected: busy + 1, desired: 0, ordering: .acquiringAndReleasing)
                    .exchanged
                {
                    waiter.store(index, ordering: .releasing)
                    onTakeover()
                } else if mainArmed.load(ordering: .acquiring) && ctempo_timerfd_remaining(deputyFD) == 0 {
                    // Nothing was guarded yet: the waiter is late to wake (a loaded machine) or between wake and
                    // guard. Its deputy timer is spent and nobody re-armed it, so watch again one delay from now.
                    armDeputy(atNanoseconds: Self.afterHandover(PlatformClock.nanoseconds(.monotonic)))
                }
            }
        }
    }

    /// Whether the waiter may drain a default-delivery mailbox itself: only while the deputy is ready to take over.
    /// A handler that blocks keeps its thread; once both threads are busy that way, further mailboxes go to the
    /// delivery pool, so blocked handlers can never leave the clock without a thread waiting for its deadlines.
    var canRunDeliveriesOnWaiter: Bool { deputyReady.load(ordering: .acquiring) }

    /// Runs `body` on the waiter thread; if it is still running ``handoverDelay`` after the deadline the deputy is
    /// armed for (the next deadline, see ``arm(atNanoseconds:)``), the deputy takes over waiting for the timerfd while
    /// `body` goes on. Costs two atomic operations and no system call.
    func guarded(_ context: DriverContext, _ body: () -> Void) {
        guardOwner.store(context.index + 1, ordering: .releasing)
        body()
        _ = guardOwner.compareExchange(expected: context.index + 1, desired: 0, ordering: .acquiringAndReleasing)
    }

    /// Arms the alarm at `wake` (nanoseconds on the clock), or disarms it for `nil`; the deputy's timer follows at
    /// `wake` + ``handoverDelay`` (on the monotonic clock), so that it wakes only if the waiter is still busy then.
    func arm(atNanoseconds wake: Int64?) {
        guard let wake else {
            mainArmed.store(false, ordering: .releasing)
            reload = Reload()
            _ = ctempo_timerfd_arm(fd, 0, 0, clock == .wall ? 1 : 0)
            _ = ctempo_timerfd_arm(deputyFD, 0, 0, 0)
            return
        }
        mainArmed.store(true, ordering: .releasing)
        // 0/0 means "disarm" to the kernel: a deadline at or before the origin becomes 1 ns.
        let nanoseconds = max(wake, 1)
        let deputy: Int64
        if clock == .wall {
            _ = ctempo_timerfd_arm(fd, nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000, 1)
            deputy = Self.monotonic(nanoseconds, clockNow: PlatformClock.nanoseconds(clock))
        } else {
            let now = PlatformClock.nanoseconds(clock)
            if !reload.firesByItself(at: nanoseconds, now: now) {
                let period = reload.period(for: nanoseconds, now: now)
                _ = ctempo_timerfd_arm_periodic(fd, nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000, period)
                reload.base = nanoseconds
                reload.period = period
            }
            reload.last = nanoseconds
            deputy = clock == .monotonic ? nanoseconds : Self.monotonic(nanoseconds, clockNow: now)
        }
        armDeputy(atNanoseconds: Self.afterHandover(deputy))
    }

    /// `nanoseconds` + ``handoverDelay``, saturated at `Int64.max` (a wake that far never comes).
    private static func afterHandover(_ nanoseconds: Int64) -> Int64 {
        saturatingSum(nanoseconds, handoverDelay)
    }

    /// `wake` on the clock that read `clockNow` just before, as an instant of the monotonic clock (the deputy's): the
    /// monotonic clock's reading plus the time left until `wake` (none once it has passed), saturated at `Int64.max`.
    private static func monotonic(_ wake: Int64, clockNow: Int64) -> Int64 {
        saturatingSum(PlatformClock.nanoseconds(.monotonic), max(0, wake &- clockNow))
    }

    /// `a + b`, saturated at `Int64.max` (both are non-negative here).
    private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Arms the deputy's timerfd at `nanoseconds` on the monotonic clock.
    private func armDeputy(atNanoseconds nanoseconds: Int64) {
        let nanoseconds = max(nanoseconds, 1)
        _ = ctempo_timerfd_arm(deputyFD, nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000, 0)
    }
}
#endif
