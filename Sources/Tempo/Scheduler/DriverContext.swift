#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one driver thread of ``SystemScheduler`` keeps between wakes: its buffer of due work and the one mailbox
/// it may drain itself.
///
/// When a deadline wakes a driver thread, a timer with the default delivery would normally hand its mailbox to the
/// delivery pool, which costs a second thread wakeup and its latency. Instead, the first such timer of a wake
/// leaves its mailbox here and the driver thread drains it itself, under the alarm's guard (if the handlers run
/// longer than the guard allows, the clock's other thread takes over waiting for deadlines, so no other timer
/// waits for them). Every further timer of the same wake goes to the pool, in one batch once the wake's due work has
/// run (``deferred``): many timers due in one wake (leeway batching) then wake each pool worker at most once, instead
/// of once for every timer a worker finished before the driver thread handed it the next.
///
/// Each driver thread owns one context, found through a thread-specific key; only that thread touches it.
final class DriverContext: @unchecked Sendable {
    // @unchecked: a context is created by its driver thread and touched only by that thread.

    /// Which of the clock's driver threads owns this context (0 or 1).
    let index: Int
    /// The due work of one wake, reused from wake to wake so that a wake allocates no array.
    var due: [(UInt64, CompactDeadlineQueue.Work)] = []
    /// Whether the thread is running due work and can take a mailbox to drain after it.
    var acceptsMailbox = false
    /// The mailbox taken in this wake.
    var mailbox: (any DeliveryLane)?
    /// Further mailboxes of this wake, handed to the delivery pool in one batch after the due work; reused from wake
    /// to wake, so that a wake allocates nothing once it has grown to the most timers due in one wake.
    var deferred: [any DeliveryLane] = []

    init(index: Int) {
        self.index = index
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// Makes `self` the calling thread's context; called once by the driver thread that owns it.
    func install() {
        // The thread keeps a strong reference through `Unmanaged`; driver threads never exit.
        pthread_setspecific(Self.key, Unmanaged.passRetained(self).toOpaque())
    }

    /// The context of the calling thread, if it is a driver thread.
    static var current: DriverContext? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<DriverContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Takes `lane` if this thread is running due work: the first lane of a wake to drain on this thread after the
    /// due work, every further one to hand to the delivery pool with the others after it.
    ///
    /// - Returns: `false` when the thread is not running due work (the caller submits the lane itself).
    func take(_ lane: any DeliveryLane) -> Bool {
        guard acceptsMailbox else { return false }
        if mailbox == nil {
            mailbox = lane
        } else {
            deferred.append(lane)
        }
        return true
    }

    /// Hands the deferred lanes of this wake to `pool` in one batch, in the order they were taken.
    func submitDeferred(to pool: DeliveryPool) {
        guard !deferred.isEmpty else { return }
        pool.submit(contentsOf: deferred)
        deferred.removeAll(keepingCapacity: true)
    }
}
