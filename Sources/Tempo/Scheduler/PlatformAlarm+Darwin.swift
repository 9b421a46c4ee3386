#if canImport(Darwin)
import Darwin
import Dispatch

/// Reads the real clocks on Apple platforms.
///
/// Not run by Tempo's CI, which is Linux-only: this file states the intended mapping.
package enum PlatformClock {
    package static func now(_ clock: TimerClock) -> TimerInstant {
        let id: clockid_t =
            switch clock {
            case .monotonic: CLOCK_UPTIME_RAW
            case .continuous: CLOCK_MONOTONIC_RAW
            case .wall: CLOCK_REALTIME
            }
        return TimerInstant(offset: .nanoseconds(Int64(clock_gettime_nsec_np(id))))
    }
}

/// One `DispatchSourceTimer` per clock, re-armed at the earliest deadline.
///
/// `continuous` deadlines are converted to the uptime clock when armed, so after a sleep they fire when
/// the driver next wakes rather than at once; Tempo re-checks the real clock whenever it wakes.
final class PlatformAlarm: @unchecked Sendable {
    // @unchecked: `source` is only touched from `arm(at:)`, which the driver calls under its lock.
    private let source: any DispatchSourceTimer
    private let clock: TimerClock

    /// The default delivery never drains a mailbox on the alarm's queue here: there is no deputy to take over.
    var canRunDeliveriesOnWaiter: Bool { false }

    init(
        clock: TimerClock,
        onWake: @escaping @Sendable (DriverContext) -> Void,
        onTakeover: @escaping @Sendable () -> Void
    ) {
        self.clock = clock
        let queue = DispatchQueue(label: "tempo.\(clock)", qos: .userInteractive)
        source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        // Touched only by the event handler, which the serial queue runs one at a time.
        let context = DriverContext(index: 0)
        source.setEventHandler { onWake(context) }
        source.schedule(deadline: .distantFuture)
        source.activate()
    }

    /// Runs `body`; there is no deputy on this backend, so a slow body delays the clock's other deadlines.
    func guarded(_ context: DriverContext, _ body: () -> Void) {
        body()
    }

    func arm(at instant: TimerInstant?) {
        guard let instant else {
            source.schedule(deadline: .distantFuture)
            return
        }
        let nanoseconds = max(instant.nanosecondsRoundedUp, 1)
        switch clock {
        case .monotonic:
            source.schedule(deadline: DispatchTime(uptimeNanoseconds: UInt64(nanoseconds)), leeway: .nanoseconds(0))
        case .wall:
            let spec = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            source.schedule(wallDeadline: DispatchWallTime(timespec: spec), leeway: .nanoseconds(0))
        case .continuous:
            let delay = max(instant.nanosecondsRoundedUp - PlatformClock.now(.continuous).nanosecondsRoundedUp, 0)
            source.schedule(deadline: .now() + .nanoseconds(Int(delay)), leeway: .nanoseconds(0))
        }
    }
}
#endif

#if canImport(Darwin)
enum PlatformThread {
    /// Gives up the rest of the time slice (used only in short spin-waits).
    static func yield() { sched_yield() }
}
#endif
