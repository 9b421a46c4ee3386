/// Something that watches every timer of the process: ticks delivered, how long handlers ran, stalls and the
/// number of pending timers.
///
/// Add one with ``TimerInstruments/add(_:)``. Tempo calls the instrument on the thread the event happens on (a
/// driver thread, a delivery-pool thread, the timer's queue), outside every lock of Tempo's, so an instrument may
/// call any Tempo API; it must be quick and must not block, because it runs on the path it measures. Every method
/// has an empty default, so an instrument implements only what it uses.
///
/// Thread-safety: instruments are `Sendable` and are called from many threads at once.
public protocol TimerInstrument: Sendable {
    /// How long a handler (or a scheduled action on a driver thread) must hold its lane to be reported as a stall
    /// to ``stalled(_:)``. Read once, by ``TimerInstruments/add(_:)``; 50 ms by default.
    var stallThreshold: Duration { get }

    /// A tick is about to be handed to its timer's handlers (called just before they run, on their lane).
    ///
    /// - Parameter event: The timer's label, clock and lane, and the tick with its lateness and missed count.
    func tickDelivered(_ event: TimerInstruments.TickEvent)

    /// A timer's handlers returned from one tick.
    ///
    /// - Parameter event: The timer, the tick's index and how long the handlers ran.
    func handlerFinished(_ event: TimerInstruments.HandlerEvent)

    /// A handler or an action held its lane (a driver thread or a delivery-pool thread) for at least
    /// ``stallThreshold``; called once it returned.
    ///
    /// - Parameter event: The culprit's label, how long it held the lane and how many other timers waited for it.
    func stalled(_ event: TimerInstruments.StallEvent)

    /// A driver thread of ``SystemScheduler`` woke: the number of actions still pending on its clock.
    ///
    /// - Parameter event: The clock and the count.
    func pendingTimers(_ event: TimerInstruments.PendingEvent)
}

extension TimerInstrument {
    /// 50 ms.
    public var stallThreshold: Duration { .milliseconds(50) }

    /// Does nothing.
    ///
    /// - Parameter event: Ignored.
    public func tickDelivered(_ event: TimerInstruments.TickEvent) {}

    /// Does nothing.
    ///
    /// - Parameter event: Ignored.
    public func handlerFinished(_ event: TimerInstruments.HandlerEvent) {}

    /// Does nothing.
    ///
    /// - Parameter event: Ignored.
    public func stalled(_ event: TimerInstruments.StallEvent) {}

    /// Does nothing.
    ///
    /// - Parameter event: Ignored.
    public func pendingTimers(_ event: TimerInstruments.PendingEvent) {}
}
