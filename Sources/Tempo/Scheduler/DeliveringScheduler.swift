package import Dispatch

/// A scheduler of this package that runs Tempo's delivery work its own way, or that Tempo's types reach through
/// another object: `VirtualClock` (which runs delivery in step with virtual time, and lets timers hold its shared
/// state instead of the clock) and the test schedulers built on it.
///
/// Package-only: a scheduler outside the package conforms to ``TimerScheduler`` alone and gets the behaviour of
/// ``TimerScheduler/deliver(on:_:)`` and ``TimerScheduler/keptReference``.
package protocol DeliveringScheduler: TimerScheduler {
    /// Runs `work` on `queue`, or on the calling thread when `queue` is `nil`. Any thread.
    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void)

    /// What a Tempo type that schedules actions keeps to reach this scheduler; by default the scheduler itself.
    ///
    /// A scheduler keeps its pending actions alive, and a running ``TempoTimer``'s action keeps the timer alive,
    /// so a timer holding the scheduler itself and the scheduler would keep each other alive. A scheduler that
    /// should be freed when its user drops it, even with actions pending (`VirtualClock`), returns an object that
    /// shares its time and queues without keeping it alive. Read once, when the Tempo type is created; any thread.
    var heldReference: any TimerScheduler { get }
}

extension DeliveringScheduler {
    /// The scheduler itself.
    package var heldReference: any TimerScheduler { self }
}

extension TimerScheduler {
    /// What a Tempo type keeps to reach this scheduler: a ``DeliveringScheduler``'s `heldReference`, otherwise
    /// the scheduler itself. Any thread.
    package var keptReference: any TimerScheduler {
        (self as? any DeliveringScheduler)?.heldReference ?? self
    }

    /// Runs Tempo's delivery `work`: a ``DeliveringScheduler``'s own way; otherwise asynchronously on `queue`, or
    /// at once on the calling thread when `queue` is `nil`. Any thread.
    package func deliver(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        if let scheduler = self as? any DeliveringScheduler {
            scheduler.execute(on: queue, work)
        } else if let queue {
            queue.async(execute: work)
        } else {
            work()
        }
    }
}
