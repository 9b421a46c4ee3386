/// The kernel timer behind one clock of ``SystemScheduler``, and the threads that wait on it.
///
/// Two implementations: `TimerfdAlarm` (Linux: a `timerfd` and two threads that take turns waiting on it) and
/// `DispatchAlarm` (a `DispatchSourceTimer`: the default on Apple platforms, selectable on Linux with
/// ``SystemScheduler/Backend/dispatch``). An alarm calls its `onWake` closure when the timer fires; the driver
/// re-arms it under the driver's lock.
protocol SchedulerAlarm: AnyObject, Sendable {
    /// Arms the timer at `nanoseconds` on the alarm's clock (a ``TimerInstant``'s offset in whole nanoseconds, as the
    /// driver keeps its wakes), or disarms it for `nil`. Called under the driver's lock.
    func arm(atNanoseconds nanoseconds: Int64?)

    /// Runs `body`, the due work of a wake, on the thread that woke with `context`; an alarm with a second thread
    /// lets it take over waiting if `body` runs long.
    func guarded(_ context: DriverContext, _ body: () -> Void)

    /// Whether the waking thread may run a default-delivery mailbox itself (only when another thread can take
    /// over waiting meanwhile).
    var canRunDeliveriesOnWaiter: Bool { get }
}
