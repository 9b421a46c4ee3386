extension TimingWheel {
    /// The last tick boundary the wheel's clock has reached.
    func currentTick() -> Int64 {
        let elapsed = scheduler.now(configuration.clock) - origin
        let ticks = elapsed.wholeMultiples(of: configuration.tick)
        return Int64(clamping: ticks)
    }

    /// Moves an idle stretch of the wheel up to the present, so a new timer is filed at the finest level.
    ///
    /// Called only when a timer may come due before the driver's action, which then is re-armed anyway.
    func catchUp(_ state: inout State) {
        state.core.skipIdle(to: currentTick())
    }

    /// Replaces the driver's scheduler action with one at tick `tick`.
    func rearm(_ state: inout State, at tick: Int64) {
        if let armed = state.armed { scheduler.cancel(armed) }
        state.armToken &+= 1
        let token = state.armToken
        state.armedTick = tick
        let instant = origin + configuration.tick * tick
        state.armed = scheduler.schedule(at: instant, leeway: .zero, clock: configuration.clock) { [weak self] in
            self?.driverFired(token: token)
        }
    }

    /// The driver's scheduler action: fires what is due, re-arms for the next slot, delivers the batch.
    private func driverFired(token: UInt64) {
        let batch = state.withLock { state -> ContiguousArray<WheelCore.Fired>? in
            guard state.armToken == token else { return nil }  // superseded by a re-arm
            state.armed = nil
            state.armedTick = .max
            var fired = ContiguousArray<WheelCore.Fired>()
            swap(&fired, &state.spare)
            state.core.advance(to: currentTick(), into: &fired)
            if let next = state.core.nextExpiration() { rearm(&state, at: next.tick) }
            return fired
        }
        guard var batch, !batch.isEmpty else { return }
        if let queue {
            let items = batch
            scheduler.execute(on: queue) { self.run(items) }
        } else {
            run(batch)
            batch.removeAll(keepingCapacity: true)  // releases the closures outside the lock
            state.withLock { state in
                if state.spare.capacity < batch.capacity { swap(&state.spare, &batch) }
            }
        }
    }

    private func run(_ batch: ContiguousArray<WheelCore.Fired>) {
        for fired in batch {
            if let action = fired.action {
                action()
            } else {
                handler?.timerFired(value: fired.value)
            }
        }
    }
}
