extension TimingWheel {
    /// Arms a timer that passes `value` to the wheel's handler at `deadline`. Allocates nothing.
    ///
    /// The timer fires at the first tick boundary at or after `deadline` (never early, at most one tick
    /// late plus the scheduler's latency); a deadline that has already passed fires in the next batch.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due, on the wheel's clock.
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` lies more than
    ///   about 292 years (`Int64.max` nanoseconds) from the wheel's creation.
    /// - Precondition: The wheel was created with a handler.
    /// - Complexity: O(1); amortized when the table must grow.
    @discardableResult
    public func schedule(at deadline: TimerInstant, value: UInt64) throws(TempoError) -> Handle {
        precondition(handler != nil, "TimingWheel.schedule(at:value:) needs a wheel created with a handler")
        return arm(deadline: try nanoseconds(deadline), value: value, action: nil)
    }

    /// Arms a timer that passes `value` to the wheel's handler once `delay` has elapsed from now.
    ///
    /// - Parameters:
    ///   - delay: How long from now on the wheel's clock; positive.
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a delay that is not positive or
    ///   too large, or ``TempoError/Code/invalidInstant`` when the deadline is out of range.
    /// - Precondition: The wheel was created with a handler.
    /// - Complexity: O(1); amortized when the table must grow.
    @discardableResult
    public func schedule(after delay: Duration, value: UInt64) throws(TempoError) -> Handle {
        try schedule(at: deadline(after: delay), value: value)
    }

    /// Arms a timer that runs `action` at `deadline`.
    ///
    /// Timing as in ``schedule(at:value:)``. The wheel keeps `action` until it has run or the timer was
    /// cancelled, and releases it outside its lock.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due, on the wheel's clock.
    ///   - action: The work to run; it runs on the wheel's delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` is out of range.
    /// - Complexity: O(1); amortized when the table must grow.
    @discardableResult
    public func schedule(at deadline: TimerInstant, _ action: @escaping @Sendable () -> Void) throws(TempoError)
        -> Handle
    {
        arm(deadline: try nanoseconds(deadline), value: 0, action: action)
    }

    /// Arms a timer that runs `action` once `delay` has elapsed from now.
    ///
    /// - Parameters:
    ///   - delay: How long from now on the wheel's clock; positive.
    ///   - action: The work to run; it runs on the wheel's delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a delay that is not positive or
    ///   too large, or ``TempoError/Code/invalidInstant`` when the deadline is out of range.
    /// - Complexity: O(1); amortized when the table must grow.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) throws(TempoError) -> Handle {
        try schedule(at: deadline(after: delay), action)
    }

    /// Disarms a timer: once this returns `true`, the timer does not fire.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: `true` if the timer was armed; `false` for a stale handle (the timer fired, is firing,
    ///   or was cancelled), in which case nothing happens.
    /// - Complexity: O(1).
    @discardableResult
    public func cancel(_ handle: Handle) -> Bool {
        guard handle.wheel == id else { return false }
        let removed = state.withLock { $0.core.remove(handle.index, handle.sequence) }
        // A cancelled closure (and what it captured) is released here, outside the lock.
        return removed != nil
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
    ///   - deadline: The new deadline.
    /// - Returns: `true` if the timer was armed and now has the new deadline; `false` for a stale handle.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` is out of range.
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ handle: Handle, at deadline: TimerInstant) throws(TempoError) -> Bool {
        let nanoseconds = try nanoseconds(deadline)
        guard handle.wheel == id else { return false }
        return state.withLock { state in
            if state.core.dueTick(nanoseconds) < state.armedTick { catchUp(&state) }
            guard let expiration = state.core.reschedule(handle.index, handle.sequence, deadline: nanoseconds) else {
                return false
            }
            if expiration < state.armedTick { rearm(&state, at: expiration) }
            return true
        }
    }

    /// Moves an armed timer's deadline to `delay` from now; see ``reschedule(_:at:)``.
    ///
    /// - Parameters:
    ///   - handle: A handle from this wheel.
    ///   - delay: How long from now; positive.
    /// - Returns: `true` if the timer was armed; `false` for a stale handle.
    /// - Throws: ``TempoError`` for a delay that is not positive or too large.
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ handle: Handle, after delay: Duration) throws(TempoError) -> Bool {
        try reschedule(handle, at: deadline(after: delay))
    }

    // MARK: Internals

    private func arm(deadline: Int64, value: UInt64, action: Action?) -> Handle {
        state.withLock { state in
            if state.core.dueTick(deadline) < state.armedTick { catchUp(&state) }
            let (index, sequence, expiration) = state.core.insert(deadline: deadline, value: value, action: action)
            if expiration < state.armedTick { rearm(&state, at: expiration) }
            return Handle(wheel: id, index: index, sequence: sequence)
        }
    }

    private func deadline(after delay: Duration) throws(TempoError) -> TimerInstant {
        try TempoError.validateInterval(delay, name: "delay")
        return now + delay
    }

    /// `deadline` as nanoseconds since the wheel's origin, rounded up.
    func nanoseconds(_ deadline: TimerInstant) throws(TempoError) -> Int64 {
        let (attoseconds, overflow) = deadline.offset.attoseconds.subtractingReportingOverflow(
            origin.offset.attoseconds)
        let magnitude = attoseconds.magnitude
        let high = UInt64(truncatingIfNeeded: magnitude >> 64)
        if !overflow,
            let (quotient, remainder) = Self.dividedByBillion(high: high, low: UInt64(truncatingIfNeeded: magnitude))
        {
            if attoseconds >= 0 {
                let rounded = remainder > 0 ? quotient + 1 : quotient  // up, so never early
                if rounded <= UInt64(Int64.max) { return Int64(rounded) }
            } else if quotient <= UInt64(Int64.max) {
                return -Int64(quotient)  // rounding a negative value up drops the remainder
            }
        }
        throw TempoError(
            .invalidInstant, value: "\(deadline)",
            message: "deadline \(deadline) is more than \(TempoError.maximumDuration) from the wheel's origin \(origin)"
        )
    }

    /// `(high · 2^64 + low) / 10^9` and its remainder, or `nil` when the quotient may not fit in 63 bits.
    ///
    /// This is on the path of every arm, so it avoids a generic 128-bit division: with
    /// 2^64 = 18,446,744,073 · 10^9 + 709,551,616 it needs only multiplications and one 64-bit division by
    /// a constant (which the compiler turns into a multiplication).
    @inline(__always)
    static func dividedByBillion(high: UInt64, low: UInt64) -> (quotient: UInt64, remainder: UInt64)? {
        guard high < 500_000_000 else { return nil }  // quotient < 2^63
        let (sum, carry) = low.addingReportingOverflow(high &* 709_551_616)
        var quotient = high &* 18_446_744_073
        var rest = sum
        if carry {
            quotient &+= 18_446_744_073
            rest = sum &+ 709_551_616  // sum < high · 709,551,616 here, so this cannot overflow
        }
        return (quotient &+ rest / 1_000_000_000, rest % 1_000_000_000)
    }
}
