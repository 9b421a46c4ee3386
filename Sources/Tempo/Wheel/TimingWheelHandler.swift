/// The shared receiver of a ``TimingWheel``'s value timers: the allocation-free way to run many timeouts.
///
/// Instead of a closure per timer, arm each timer with a small value (a connection index, a request id)
/// through ``TimingWheel/schedule(at:value:)`` and let one handler object act on it. Arming then
/// allocates nothing: the value lives in the wheel's preallocated table.
///
/// ```swift
/// final class IdleReaper: TimingWheelHandler {
///     let connections: ConnectionTable
///     func timerFired(value: UInt64) { connections.close(id: value) }
/// }
/// ```
///
/// Thread-safety: the wheel calls ``timerFired(value:)`` for every due timer of a batch in turn, on the
/// wheel's delivery queue or driver thread (see ``TimingWheel/Configuration/delivery``), outside the
/// wheel's lock: the handler may arm, cancel and reschedule timers on the same wheel. Batches are
/// delivered in order; on a serial queue they never overlap.
public protocol TimingWheelHandler: AnyObject, Sendable {
    /// Called once for each value timer when its deadline has passed.
    ///
    /// - Parameter value: The value the timer was armed with.
    func timerFired(value: UInt64)
}
