import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `DispatchSourceTimer` per clock (`.strict`, leeway 0) on a serial queue of its own, re-armed at the
/// earliest deadline: ``SystemScheduler/Backend/dispatch``, the default on Apple platforms and selectable on
/// Linux, where CI runs it.
///
/// Deadlines map to Dispatch's clocks as follows: `monotonic` instants are `DispatchTime` uptime nanoseconds
/// (the same kernel clock as ``TimerClock/monotonic`` on both platforms), `wall` instants are `DispatchWallTime`,
/// and `continuous` instants are converted to a delay from now when armed, so after a sleep they fire when the
/// driver next wakes rather than at once (the `timerfd` backend wakes on `CLOCK_BOOTTIME` itself). Tempo re-checks
/// the real clock whenever it wakes, so nothing fires early either way.
///
/// There is one thread (the queue's): handlers of the default delivery never run on it, and a blocked
/// ``TimerDelivery/immediate`` handler delays every timer of the clock until it returns.
final class DispatchAlarm: SchedulerAlarm, @unchecked Sendable {
    // @unchecked: `source` is only touched from `arm(at:)`, which the driver calls under its lock; `context` only
    // from the event handler, which the serial queue runs one at a time.
    private let source: any DispatchSourceTimer
    private let clock: TimerClock

    init(clock: TimerClock, onWake: @escaping @Sendable (DriverContext, DispatchAlarm) -> Void) {
        self.clock = clock
        let queue = DispatchQueue(label: "tempo.\(clock)", qos: .userInteractive)
        source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        let context = DriverContext(index: 0)
        // Weak: the source keeps its handler, and the alarm keeps the source.
        source.setEventHandler { [weak self] in
            if let self { onWake(context, self) }
        }
        source.schedule(deadline: .distantFuture)
        source.activate()
    }

    var canRunDeliveriesOnWaiter: Bool { false }

    func guarded(_ context: DriverContext, _ body: () -> Void) {
        body()
    }

    func arm(atNanoseconds wake: Int64?) {
        guard let wake else {
            source.schedule(deadline: .distantFuture)
            return
        }
        let nanoseconds = max(wake, 1)
        switch clock {
        case .monotonic:
            source.schedule(deadline: DispatchTime(uptimeNanoseconds: UInt64(nanoseconds)), leeway: .nanoseconds(0))
        case .wall:
            let spec = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            source.schedule(wallDeadline: DispatchWallTime(timespec: spec), leeway: .nanoseconds(0))
        case .continuous:
            let delay = max(nanoseconds - PlatformClock.now(.continuous).nanosecondsRoundedUp, 0)
            source.schedule(deadline: .now() + .nanoseconds(Int(delay)), leeway: .nanoseconds(0))
        }
    }
}
