extension TimingWheel {
    /// Arms a timer that passes `value` to the wheel's handler at `deadline`. Allocates nothing.
    ///
    /// The timer fires at the first tick boundary at or after `deadline` (never early, at most one tick
    /// late plus the scheduler's latency); a deadline that has already passed fires in the next batch. A deadline on
    /// another clock than the wheel's (``Configuration/clock``) is converted once, here: the time left to it on its
    /// own clock is measured from now on the wheel's clock, as `DelayQueue` does.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due: an instant and the clock it belongs to, so that an instant of another
    ///     clock cannot be armed by mistake.
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` (converted to the wheel's
    ///   clock) lies more than about 292 years (`Int64.max` nanoseconds) from the wheel's creation, or with
    ///   ``TempoError/Code/invalidArgument`` when the wheel was created without a handler (nothing could receive
    ///   the value; nothing is armed).
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    public func schedule(at deadline: TimerDeadline, value: UInt64) throws(TempoError) -> Handle {
        try schedule(at: try onWheelClock(deadline), value: value)
    }

    /// Arms a timer that runs `action` at `deadline`.
    ///
    /// Timing as in ``schedule(at:value:)``. The wheel keeps `action` until it has run or the timer was
    /// cancelled, and releases it outside its lock.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due (another clock's deadline is converted as ``schedule(at:value:)`` says).
    ///   - action: The work to run; it runs on the wheel's delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` is out of range.
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    public func schedule(at deadline: TimerDeadline, _ action: @escaping @Sendable () -> Void) throws(TempoError)
        -> Handle
    {
        try schedule(at: try onWheelClock(deadline), action)
    }

    /// Moves an armed timer's deadline, keeping its handle.
    ///
    /// Pushing the deadline later (an idle timeout refreshed on every read) only stores it: the timer is
    /// re-filed when its old slot comes due. Bringing it earlier re-files it at once and, if it is now the
    /// earliest, re-arms the driver. A deadline that has passed fires in the next batch. Timers with equal
    /// deadlines keep the order in which they were first armed.
    ///
    /// - Parameters:
    ///   - handle: A handle from this wheel.
    ///   - deadline: The new deadline (another clock's deadline is converted as ``schedule(at:value:)`` says).
    /// - Returns: `true` if the timer was armed and now has the new deadline; `false` for a stale handle.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` is out of range.
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ handle: Handle, at deadline: TimerDeadline) throws(TempoError) -> Bool {
        try reschedule(handle, at: try onWheelClock(deadline))
    }

    /// The deadline of an armed timer (rounded up to the nanosecond) on the wheel's clock, or `nil` for a stale
    /// handle.
    ///
    /// A timer armed with a delay on ``SystemScheduler`` that still waits for the driver's next clock reading
    /// (see "Relative deadlines") gets its deadline now, from a clock reading taken here.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: The deadline the timer will fire at or after, on ``Configuration/clock``.
    public func deadline(of handle: Handle) -> TimerDeadline? {
        instantDeadline(of: handle).map { TimerDeadline($0, clock: configuration.clock) }
    }

    /// `deadline` on the wheel's clock: its instant when it is on that clock; otherwise now on the wheel's clock plus
    /// the time left to it on its own.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` naming `deadline` when, converted, it is out
    ///   of the wheel's range (or of `Duration`'s).
    package func onWheelClock(_ deadline: TimerDeadline) throws(TempoError) -> TimerInstant {
        let own = configuration.clock
        guard deadline.clock != own else { return deadline.instant }
        let left = scheduler.now(deadline.clock).saturatingDuration(to: deadline.instant)
        if left > Duration(attoseconds: .min), left < Duration(attoseconds: .max),
            let instant = scheduler.now(own).checkedAdvanced(by: left),
            (try? nanoseconds(instant)) != nil
        {
            return instant
        }
        throw TempoError(
            .invalidInstant, value: "\(deadline.instant)",
            message: """
                deadline \(deadline.instant) on the \(deadline.clock) clock is out of the range of the wheel's \
                \(own) clock (about 292 years from the wheel's creation)
                """)
    }
}
