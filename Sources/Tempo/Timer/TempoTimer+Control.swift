import Synchronization

extension TempoTimer {
    /// Starts the timer: from idle, finished or cancelled it begins a new schedule (fire count back to 0);
    /// from paused it resumes; while running it does nothing.
    ///
    /// A one-shot whose tick has fired is finished, so `start()` runs it again (as it restarts a cancelled timer):
    /// creating a timer never starts it, so the `start()` that creates and starts in one line is the only one. An
    /// ``TimerSchedule/after(_:leeway:delivery:clock:)`` one-shot then waits its delay again; an
    /// ``TimerSchedule/at(_:ifPast:leeway:delivery:)`` one-shot is re-armed at its deadline, which has passed, so it
    /// fires again at once (whatever its ``PastDeadlinePolicy``: that is checked only where the timer is created);
    /// move it first with ``reschedule(at:)`` or ``reschedule(after:)``.
    ///
    /// - Returns: The timer, so that `try TempoTimer(...) { ... }.start()` creates and starts in one expression.
    @inlinable
    @discardableResult
    public func start() -> TempoTimer {
        startTimer()
        // Inlined into the caller, so that returning `self` (a retain) and the caller's release of the reference it
        // called `start()` on cancel out: every `TempoTimer(...).start()` paid that pair, two atomic operations on the
        // new object (issue #44).
        return self
    }

    /// What ``start()`` does, without the return value.
    @usableFromInline
    func startTimer() {
        let (now, stamp) = nowAndStamp()
        perform(stamp: stamp) { $0.start(now: now) }
    }

    /// Pauses a running timer, keeping the time left to the next tick. Does nothing in any other state.
    ///
    /// Ticks that were already due before the pause are still delivered.
    public func pause() {
        let now = now()
        perform { $0.pause(now: now) }
    }

    /// Resumes a paused timer: the next tick is due after the time that was left when it paused, and the
    /// grid is shifted by the time spent paused. Does nothing in any other state.
    public func resume() {
        let now = now()
        perform { $0.resume(now: now) }
    }

    /// Starts the schedule over from now: the next tick is due one interval (or the configured first-tick
    /// delay) from now, and the fire and remaining counts start again. Ticks of the old schedule that were
    /// not yet delivered are dropped.
    ///
    /// A paused timer stays paused with a full first delay left (``restart(interval:)`` resumes it instead); any
    /// other timer ends up running. A one-shot has no interval: an ``TimerSchedule/after(_:leeway:delivery:clock:)``
    /// one-shot starts its delay over, and an ``TimerSchedule/at(_:ifPast:leeway:delivery:)`` one-shot is re-armed
    /// at its deadline, so once that has passed it fires at once, even one created with `ifPast: .throw` (the
    /// ``PastDeadlinePolicy`` is checked only where the timer is created; move it with ``reschedule(at:)``).
    ///
    /// - Parameter interval: A new interval, or `nil` to keep the current one.
    /// - Throws: ``TempoError`` when `interval` is invalid, or is given for a one-shot
    ///   (``TempoError/Code/invalidInterval``); the timer is then unchanged.
    public func reset(interval: Duration? = nil) throws(TempoError) {
        if let interval {
            if withMachine({ $0.isOneShot }) {
                throw TempoError(
                    .invalidInterval, value: interval.exactDescription,
                    message:
                        "a one-shot has no interval to reset to \(interval.exactDescription): use reschedule(after:)")
            }
            try TempoError.validateInterval(interval)
        }
        let now = now()
        perform { $0.reset(now: now, interval: interval) }
    }

    /// Starts the schedule over from now and runs it, whatever the state: ``reset(interval:)``, then ``resume()``
    /// for a paused timer (Repeat's `reset(_:restart: true)`).
    ///
    /// - Parameter interval: A new interval, or `nil` to keep the current one.
    /// - Throws: ``TempoError`` as ``reset(interval:)`` does; the timer is then unchanged.
    public func restart(interval: Duration? = nil) throws(TempoError) {
        try reset(interval: interval)
        resume()
    }

    /// Cancels the timer: once this returns, no further tick is claimed for delivery and queued ticks are
    /// dropped. A run the delivery queue had already claimed (at most one) may still be entering or running its
    /// handlers: `cancel()` waits only for the few instructions between a claim and the handler call, never
    /// for user code, so it is safe to call from anywhere, including a handler. Idempotent; ``start()`` runs
    /// the timer again.
    public func cancel() {
        perform { $0.cancel() }
        var spins = 0
        while claimsInFlight.load(ordering: .acquiring) > 0 {
            spins += 1
            if spins > 64 { PlatformThread.yield() }
        }
    }

    /// Runs the handlers now, through the timer's delivery, without touching the schedule.
    ///
    /// The tick has ``TimerTick/isManual`` set and is not counted in ``fireCount``. Works in every state
    /// except cancelled.
    ///
    /// - Returns: Whether a run was queued (`false` for a cancelled timer).
    @discardableResult
    public func fire() -> Bool {
        let now = now()
        var fired = false
        perform { machine in
            let result = machine.fire(now: now)
            fired = result.fired
            return result.actions
        }
        return fired
    }
}
