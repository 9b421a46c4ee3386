public import Dispatch

/// Where a timer runs its handlers.
///
/// Whatever the queue, runs of one timer's handlers never overlap: each timer delivers through its own
/// serial mailbox, so even a concurrent queue sees one handler run of a timer at a time.
public struct TimerDelivery: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case privateQueue
        case queue(DispatchQueue)
        case immediate
    }

    let kind: Kind

    /// The default: a serial lane of the timer's own, run by Tempo's threads, never two runs at once.
    ///
    /// The timer owns no queue. With ``SystemScheduler``, the first timer of a wake whose handlers are due runs
    /// them on the clock's driver thread that woke (no second thread wakeup, so it is as punctual as
    /// ``immediate``), while the clock's second driver thread stands by: if the handlers are still running
    /// 0.5 ms after the deadline, that thread takes over waiting for the clock's other deadlines. Other timers
    /// due in the same wake run after it on the same thread, one after the other, while Tempo's delivery pool
    /// (one thread per core, at least two; it starts one more thread when every pool thread has been busy with one
    /// handler for 50 ms) helps with many of them (one more pool thread per 128 timers due together) and takes over
    /// the rest when the standby thread had to take over waiting; every timer while the standby thread is itself
    /// held by a handler runs on the pool. So a handler that blocks delays the other timers of its clock by about
    /// 0.5 ms at most, once, and its own timer's later ticks until it returns. Runs of different timers may run in
    /// parallel. On other schedulers (`VirtualClock`), handlers run on a shared concurrent
    /// queue (`VirtualClock` runs them in step with virtual time).
    public static let privateQueue = TimerDelivery(kind: .privateQueue)

    /// The given queue: `.main`, a global queue or one of your own.
    ///
    /// - Parameter queue: The queue to run handlers on.
    /// - Returns: The delivery option.
    public static func queue(_ queue: DispatchQueue) -> TimerDelivery {
        TimerDelivery(kind: .queue(queue))
    }

    /// On the scheduler's driver thread, with no queue hop: the most punctual option, for short handlers that
    /// never block.
    ///
    /// With ``SystemScheduler``, the clock's second driver thread takes over waiting for deadlines if a handler is
    /// still running 0.5 ms after its deadline, so one slow handler delays the clock's other timers by about
    /// 0.5 ms; but two handlers blocked at once hold both driver threads, and then every timer of that clock
    /// waits for one of them to return (with the default delivery, a handler can never hold the second thread).
    /// Ticks delayed by such a stall are coalesced by the late-tick policy; ``TimerTick/overdue`` reports how long
    /// the stall was. Manual fires run on the thread that calls ``TempoTimer/fire()``.
    public static let immediate = TimerDelivery(kind: .immediate)

    /// `privateQueue`, `immediate` or `queue(<label>)`.
    public var description: String {
        switch kind {
        case .privateQueue: "privateQueue"
        case .immediate: "immediate"
        case .queue(let queue): "queue(\(queue.label))"
        }
    }
}
