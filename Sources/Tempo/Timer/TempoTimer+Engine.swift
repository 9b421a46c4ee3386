import Dispatch

extension TempoTimer {
    /// The scheduler, clock and delivery route of a timer, in one word: every case holds one reference (counted, but
    /// for ``SystemScheduler/shared``'s drivers), so the case fits in the reference's spare bits. The four common cases
    /// on ``SystemScheduler`` hold the driver of the timer's clock (which knows the clock) directly; the others hold a
    /// small box made when the timer is created.
    enum Engine {
        /// ``SystemScheduler``, default delivery: drained on ``DeliveryPool/shared`` (or the driver thread).
        case systemPool(ClockDriver)
        /// ``SystemScheduler``, ``TimerDelivery/immediate``: drained on the thread that queued the delivery.
        case systemInline(ClockDriver)
        /// As ``systemPool(_:)``, on ``SystemScheduler/shared``, whose drivers live as long as the process: held with
        /// no reference count, so that threads creating and releasing timers at once do not all write the driver's
        /// count (`tempo bench --threads`, docs/latency.md).
        case sharedPool(Unmanaged<ClockDriver>)
        /// As ``systemInline(_:)``, on ``SystemScheduler/shared`` (see ``sharedPool(_:)``).
        case sharedInline(Unmanaged<ClockDriver>)
        /// ``SystemScheduler``, ``TimerDelivery/queue(_:)``: drained on that queue.
        case systemQueue(QueueRoute)
        /// Another scheduler: drained through its `deliver(on:_:)`.
        case other(OtherScheduler)

        /// The ``SystemScheduler`` driver of the timer's clock, without a reference count (`nil` on another
        /// scheduler): the engine, a constant of the timer, keeps it alive.
        @inline(__always)
        var driver: Unmanaged<ClockDriver>? {
            switch self {
            case .sharedPool(let driver), .sharedInline(let driver): driver
            case .systemPool(let driver), .systemInline(let driver): Unmanaged.passUnretained(driver)
            case .systemQueue(let route): Unmanaged.passUnretained(route.driver)
            case .other: nil
            }
        }

        /// Whether the timer has the default delivery on ``SystemScheduler`` (drained on the delivery pool).
        var isPooled: Bool {
            switch self {
            case .systemPool, .sharedPool: true
            case .systemInline, .sharedInline, .systemQueue, .other: false
            }
        }
    }

    /// A ``SystemScheduler`` clock driver and the queue a timer delivers on.
    final class QueueRoute: Sendable {
        let driver: ClockDriver
        let queue: DispatchQueue
        init(driver: ClockDriver, queue: DispatchQueue) {
            self.driver = driver
            self.queue = queue
        }
    }

    /// A scheduler other than ``SystemScheduler`` (its `keptReference`), the timer's clock, and the queue to pass to
    /// the scheduler's `deliver(on:_:)` (`nil` for ``TimerDelivery/immediate``).
    final class OtherScheduler: Sendable {
        let scheduler: any TimerScheduler
        let clock: TimerClock
        let queue: DispatchQueue?
        init(scheduler: any TimerScheduler, clock: TimerClock, queue: DispatchQueue?) {
            self.scheduler = scheduler
            self.clock = clock
            self.queue = queue
        }
    }
}
