/// A receiver of a wheel's value timers in batches: the keyed toolkit types (``ExpiringDictionary``,
/// ``KeyedRateLimiter``) take a batch of due tokens under one lock, in code specialized for their key and value.
@usableFromInline
protocol TimingWheelBatchHandler: TimingWheelHandler {
    /// Called for consecutive value timers of one driver run of `wheel`, in firing order, outside the wheel's lock;
    /// the same contract as ``TimingWheelHandler/timerFired(value:)`` for each value in turn. The handler may arm
    /// timers on `wheel` again (a keyed entry whose deadline moved later while its timer waited).
    func timersFired(values: UnsafeBufferPointer<UInt64>, on wheel: TimingWheel)
}

/// When a keyed timer is due: at an instant, or after a delay from now (the wheel's cheaper relative arm), given as a
/// `Duration` or as a valid number of nanoseconds.
@usableFromInline
enum WheelDue {
    case at(TimerInstant)
    case after(Duration)
    case afterNanoseconds(Int64)
    /// At a deadline in nanoseconds since the wheel's origin (from ``TimingWheel/keyedNow()``).
    case atNanoseconds(Int64)
}

// The timers of the keyed toolkit types, named by table index and value instead of a ``TimingWheel/Handle``.
//
// Each owner (``WheelKeyTable``) gives every armed timer a value that no other armed timer of the wheel carries
// (its slot and generation), so `(index, value)` names one armed timer as exactly as a handle does, and the owner
// stores 4 bytes per timer instead of a 16-byte handle. Only value timers the owner armed are looked up this way: a
// user who arms value timers of their own on the owner's wheel already hands them to the owner's handler.
extension TimingWheel {
    /// Arms a value timer; returns its table index.
    @usableFromInline
    func armKeyed(_ due: WheelDue, value: UInt64) throws(TempoError) -> UInt32 {
        switch due {
        case .at(let deadline): try schedule(at: deadline, value: value).index
        case .after(let delay): try schedule(after: delay, value: value).index
        case .afterNanoseconds(let delay): try schedule(after: .nanoseconds(delay), value: value).index
        case .atNanoseconds(let deadline): armKeyed(nanoseconds: deadline, value: value)
        }
    }

    /// Arms a value timer due `deadline` nanoseconds after the wheel's origin; returns its table index.
    @usableFromInline
    func armKeyed(nanoseconds deadline: Int64, value: UInt64) -> UInt32 {
        arm(deadline: deadline, value: value, action: nil).index
    }

    /// The wheel's clock now, in nanoseconds since its origin rounded up (so a deadline from it is never early);
    /// `Int64.max` past the wheel's range.
    @usableFromInline
    func keyedNow() -> Int64 {
        (try? nanoseconds(scheduler.now(configuration.clock))) ?? .max
    }

    /// The wheel's clock now, in nanoseconds since its origin rounded down (a deadline at or before it has come).
    @usableFromInline
    func keyedNowRoundedDown() -> Int64 {
        let attoseconds = (scheduler.now(configuration.clock) - origin).attoseconds / 1_000_000_000
        return Int64(clamping: attoseconds)
    }

    /// Moves the armed timer at `index` that carries `value`; `false` when there is none (it was taken for firing).
    @usableFromInline
    func rescheduleKeyed(_ index: UInt32, value: UInt64, _ due: WheelDue) throws(TempoError) -> Bool {
        let nanoseconds: Int64
        switch due {
        case .at(let deadline): nanoseconds = try self.nanoseconds(deadline)
        case .after(let delay): nanoseconds = try self.nanoseconds(deadline(after: delay))
        case .afterNanoseconds(let delay):
            let (sum, overflow) = try self.nanoseconds(now).addingReportingOverflow(delay)
            // Past the wheel's range: the checked path reports it.
            nanoseconds = overflow ? try self.nanoseconds(deadline(after: .nanoseconds(delay))) : sum
        case .atNanoseconds(let deadline): nanoseconds = deadline
        }
        return state.withLock { state in
            guard let sequence = state.core.sequence(of: index, value: value) else { return false }
            return move(&state, index, sequence, to: nanoseconds)
        }
    }

    /// Cancels the armed timer at `index` that carries `value`; `false` when there is none.
    @usableFromInline
    @discardableResult
    func cancelKeyed(_ index: UInt32, value: UInt64) -> Bool {
        state.withLock { state in
            guard let sequence = state.core.sequence(of: index, value: value) else { return false }
            return state.core.remove(index, sequence) != nil
        }
    }

    /// Whether the timer at `index` that carries `value` is armed.
    func isArmedKeyed(_ index: UInt32, value: UInt64) -> Bool {
        state.withLock { $0.core.sequence(of: index, value: value) != nil }
    }
}

extension WheelCore {
    /// The sequence number of the armed timer at `index` if it carries `value`; `nil` otherwise.
    @inline(__always)
    func sequence(of index: UInt32, value: UInt64) -> UInt64? {
        guard Int(index) >= Self.sentinelCount, Int(index) < capacity else { return nil }
        let entry = entry(index)
        let sequence = entry.pointee.sequence
        guard sequence != 0, entry.pointee.value == value else { return nil }
        return sequence & ~Self.provisionalBit
    }
}
