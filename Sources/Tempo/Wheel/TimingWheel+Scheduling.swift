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
    ///   about 292 years (`Int64.max` nanoseconds) from the wheel's creation, or with
    ///   ``TempoError/Code/invalidArgument`` when the wheel was created without a handler (nothing could receive
    ///   the value; nothing is armed).
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    package func schedule(at deadline: TimerInstant, value: UInt64) throws(TempoError) -> Handle {
        try requireHandler()
        return arm(deadline: try nanoseconds(deadline), value: value, action: nil)
    }

    /// Arms a timer that passes `value` to the wheel's handler once `delay` has elapsed from now.
    ///
    /// Never early: the timer fires at the first tick boundary at or after a deadline measured from a clock
    /// reading taken after this call began. On a busy wheel on ``SystemScheduler`` that reading is the driver's
    /// next one, with no clock read here (see "Relative deadlines" on ``TimingWheel``), so the timer may fire up
    /// to one tick later than with `schedule(at: now + delay)`; otherwise the call reads the clock.
    ///
    /// - Parameters:
    ///   - delay: How long from now on the wheel's clock, from zero (due at once: it fires in the next batch, as a
    ///     deadline already past does) to 292 years (`Int64.max` ns): the one rule for delays, as for
    ///     `TimerSchedule.after(_:)`.
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns), ``TempoError/Code/invalidInstant`` when the deadline is out of range, or
    ///   ``TempoError/Code/invalidArgument`` when the wheel was created without a handler.
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    public func schedule(after delay: Duration, value: UInt64) throws(TempoError) -> Handle {
        try requireHandler()
        if settlesDelaysLater, let nanoseconds = Self.settleableDelay(delay),
            let handle = armRelative(delay: nanoseconds, value: value, action: nil)
        {
            return handle
        }
        return arm(deadline: try nanoseconds(deadline(after: delay)), value: value, action: nil)
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
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    package func schedule(at deadline: TimerInstant, _ action: @escaping @Sendable () -> Void) throws(TempoError)
        -> Handle
    {
        arm(deadline: try nanoseconds(deadline), value: 0, action: action)
    }

    /// Arms a timer that runs `action` once `delay` has elapsed from now.
    ///
    /// Timing as in ``schedule(after:value:)``: never early, and on a busy wheel on ``SystemScheduler`` up to
    /// one tick later than `schedule(at: now + delay)`.
    ///
    /// - Parameters:
    ///   - delay: How long from now on the wheel's clock, from zero (due at once) to
    ///     292 years (`Int64.max` ns).
    ///   - action: The work to run; it runs on the wheel's delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns), or ``TempoError/Code/invalidInstant`` when the deadline is out of range.
    /// - Complexity: O(1); when the table is full it grows by one fixed chunk.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) throws(TempoError) -> Handle {
        if settlesDelaysLater, let nanoseconds = Self.settleableDelay(delay),
            let handle = armRelative(delay: nanoseconds, value: 0, action: action)
        {
            return handle
        }
        return try schedule(at: deadline(after: delay), action)
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
    package func reschedule(_ handle: Handle, at deadline: TimerInstant) throws(TempoError) -> Bool {
        // A timer still waiting for its deadline (see "Relative deadlines") simply gets this one.
        let nanoseconds = try nanoseconds(deadline)
        guard handle.wheel == id else { return false }
        return state.withLock { state in move(&state, handle.index, handle.sequence, to: nanoseconds) }
    }

    /// Moves the timer `(index, sequence)` to `nanoseconds` under the lock; `false` for a stale one.
    func move(_ state: inout State, _ index: UInt32, _ sequence: UInt64, to nanoseconds: Int64) -> Bool {
        if state.core.dueTick(nanoseconds) < state.armedTick { catchUp(&state) }
        guard let expiration = state.core.reschedule(index, sequence, deadline: nanoseconds) else { return false }
        if expiration < state.armedTick { rearm(&state, at: expiration) }
        return true
    }

    /// Moves an armed timer's deadline to `delay` from now; see ``reschedule(_:at:)``.
    ///
    /// - Parameters:
    ///   - handle: A handle from this wheel.
    ///   - delay: How long from now, from zero (due at once) to 292 years (`Int64.max` ns).
    /// - Returns: `true` if the timer was armed; `false` for a stale handle.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns).
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ handle: Handle, after delay: Duration) throws(TempoError) -> Bool {
        try reschedule(handle, at: deadline(after: delay))
    }

    // MARK: Internals

    private func requireHandler() throws(TempoError) {
        guard handler == nil else { return }
        throw TempoError(
            .invalidArgument, value: "nil",
            message: "a value timer needs a wheel created with a handler (TimingWheel(handler:)); this wheel has none")
    }

    /// How many timers armed with a delay read the clock between two driver runs before the rest wait for the
    /// driver's reading instead (at the cost of at most one driver run per tick).
    static let clockedDelaysPerRun = 16

    /// Arms a timer `delay` nanoseconds from now (see "Relative deadlines"): it waits for the driver's next clock
    /// reading when the driver runs within the next tick anyway or many delays were armed since its last run;
    /// else it reads the clock here, under the lock. Returns `nil` when the deadline would leave the wheel's range
    /// (the caller's checked path then throws).
    private func armRelative(delay: Int64, value: UInt64, action: Action?) -> Handle? {
        state.withLock { state -> Handle? in
            let wake = state.core.now + 1
            if state.armedTick <= wake || state.clockedDelays >= Self.clockedDelaysPerRun {
                // The driver settles waiting delays at its next run: at the next tick boundary at the latest (at
                // once when the wheel has been idle, since that boundary has passed).
                if wake < state.armedTick { rearm(&state, at: wake) }
                let (index, sequence) = state.core.insertProvisional(delay: delay, value: value, action: action)
                return Handle(wheel: id, index: index, sequence: sequence)
            }
            let reading = clockReading()
            let (deadline, overflow) = reading.nanoseconds.addingReportingOverflow(delay)
            guard !overflow else { return nil }
            state.clockedDelays += 1
            if state.core.dueTick(deadline) < state.armedTick { state.core.skipIdle(to: reading.tick) }
            let (index, sequence, expiration) = state.core.insert(deadline: deadline, value: value, action: action)
            if expiration < state.armedTick { rearm(&state, at: expiration) }
            return Handle(wheel: id, index: index, sequence: sequence)
        }
    }

    /// `delay` in nanoseconds, rounded up, when it is valid and at most `Int64.max / 2` nanoseconds (146 years);
    /// else `nil`, and the caller takes the path that reads the clock and reports the error.
    @inline(__always)
    static func settleableDelay(_ delay: Duration) -> Int64? {
        // At least 1 ns (a shorter delay, zero included, takes the path that reads the clock). The conversion divides
        // with no 128-bit division in this range and saturates beyond it, which the bound then refuses.
        guard delay.attoseconds >= 1_000_000_000 else { return nil }
        let nanoseconds = delay.nanoseconds(rounded: .up)
        return nanoseconds <= Int64.max / 2 ? nanoseconds : nil
    }

    func arm(deadline: Int64, value: UInt64, action: Action?) -> Handle {
        state.withLock { state in
            if state.core.dueTick(deadline) < state.armedTick { catchUp(&state) }
            let (index, sequence, expiration) = state.core.insert(deadline: deadline, value: value, action: action)
            if expiration < state.armedTick { rearm(&state, at: expiration) }
            return Handle(wheel: id, index: index, sequence: sequence)
        }
    }

    func deadline(after delay: Duration) throws(TempoError) -> TimerInstant {
        try TempoError.validateDelay(delay)
        return now + delay
    }

    /// `deadline` as nanoseconds since the wheel's origin, rounded up.
    func nanoseconds(_ deadline: TimerInstant) throws(TempoError) -> Int64 {
        let (attoseconds, overflow) = deadline.offset.attoseconds.subtractingReportingOverflow(
            origin.offset.attoseconds)
        let magnitude = attoseconds.magnitude
        let high = UInt64(truncatingIfNeeded: magnitude >> 64)
        if !overflow,
            let (quotient, remainder) = Duration.dividedByBillion(
                high: high, low: UInt64(truncatingIfNeeded: magnitude))
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
}
