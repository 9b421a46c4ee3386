import Dispatch

extension TempoTimer {
    /// The scheduler, clock and delivery route of a timer, in one word: every case holds one reference, so the case
    /// fits in the reference's spare bits. The two common cases on ``SystemScheduler`` hold the driver of the timer's
    /// clock (which knows the clock) directly; the others hold a small box made when the timer is created.
    enum Engine {
        /// ``SystemScheduler``, default delivery: drained on ``DeliveryPool/shared`` (or the driver thread).
        case systemPool(ClockDriver)
        /// ``SystemScheduler``, ``TimerDelivery/immediate``: drained on the thread that queued the delivery.
        case systemInline(ClockDriver)
        /// ``SystemScheduler``, ``TimerDelivery/queue(_:)``: drained on that queue.
        case systemQueue(QueueRoute)
        /// Another scheduler: drained through its `deliver(on:_:)`.
        case other(OtherScheduler)
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
