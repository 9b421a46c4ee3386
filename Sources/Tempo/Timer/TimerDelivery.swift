public import Dispatch

/// Where a timer runs its handlers.
///
/// Whatever the queue, runs of one timer's handlers never overlap: each timer delivers through its own
/// serial mailbox, so even a concurrent queue sees one handler run of a timer at a time.
public struct TimerDelivery: Sendable {
    enum Kind: Sendable {
        case privateQueue
        case queue(DispatchQueue)
        case immediate
    }

    let kind: Kind

    /// The default: off the driver thread, in a serial lane of the timer's own on Tempo's shared delivery pool.
    ///
    /// The timer's handler runs are serial and in order, as on a private serial queue, but the timer owns no
    /// queue: every timer's lane runs on one shared concurrent Dispatch queue, whose worker threads number about
    /// one per core, so many timers due at once do not start a thread each. Runs of different timers may run in
    /// parallel; a handler that blocks holds one pool thread, not the driver.
    public static let privateQueue = TimerDelivery(kind: .privateQueue)

    /// The given queue: `.main`, a global queue or one of your own.
    ///
    /// - Parameter queue: The queue to run handlers on.
    /// - Returns: The delivery option.
    public static func queue(_ queue: DispatchQueue) -> TimerDelivery {
        TimerDelivery(kind: .queue(queue))
    }

    /// On the scheduler's driver thread, with no queue hop: the most punctual option. Handlers must be
    /// short and must not block, because every timer of that clock on the same scheduler waits for them (with
    /// the default delivery, a handler delays only its own timer's later ticks). Ticks delayed by such a stall
    /// are coalesced by the late-tick policy; ``TimerTick/overdue`` reports how long the stall was. Manual fires run on the
    /// thread that calls ``TempoTimer/fire()``.
    public static let immediate = TimerDelivery(kind: .immediate)
}
