extension TimingWheel {
    /// The last tick boundary the wheel's clock has reached, and the clock's reading in nanoseconds since the
    /// origin, rounded up (`Int64.max` past the wheel's range).
    func clockReading() -> (tick: Int64, nanoseconds: Int64) {
        let instant = scheduler.now(configuration.clock)
        let elapsed = instant - origin
        let tick = Int64(clamping: elapsed.wholeMultiples(of: configuration.resolution))
        let nanoseconds = (try? self.nanoseconds(instant)) ?? .max
        return (tick, nanoseconds)
    }

    /// The last tick boundary the wheel's clock has reached.
    func currentTick() -> Int64 {
        clockReading().tick
    }

    /// Moves an idle stretch of the wheel up to the present, so a new timer is filed at the finest level.
    ///
    /// Called only when a timer may come due before the driver's action, which then is re-armed anyway.
    func catchUp(_ state: inout State) {
        state.core.skipIdle(to: currentTick())
    }

    /// Replaces the driver's scheduler action with one at tick `tick`.
    ///
    /// On ``SystemScheduler`` the action is the wheel's ``WheelDriver`` with a token, no closure: a re-arm
    /// allocates nothing once the scheduler's table has grown.
    func rearm(_ state: inout State, at tick: Int64) {
        if let armed = state.armed { scheduler.cancel(armed) }
        state.armToken &+= 1
        let token = state.armToken
        state.armedTick = tick
        let instant = origin + configuration.resolution * tick
        if let system {
            let armed = system.schedule(at: instant, leeway: .zero, clock: configuration.clock, target: .wheel(driver))
            state.armed = armed
            // The scheduler tells the driver the action's id: unique, so it serves as the token of this arm.
            state.armToken = armed.id
        } else {
            let driver = self.driver
            state.armed = scheduler.schedule(at: instant, leeway: .zero, clock: configuration.clock) {
                driver.scheduledDeadlineReached(tag: token)
            }
        }
    }

    /// The driver's scheduler action: fires what is due, settles waiting delays, re-arms for the next slot and
    /// delivers the batch. Once the batch buffers have grown a run allocates nothing: with driver-thread delivery
    /// the batch runs here; with queue delivery on ``SystemScheduler`` it is appended to ``State/queued`` and one
    /// reused work item drains it on the queue.
    func driverFired(token: UInt64) {
        if queue != nil || usesPool {
            fireIntoQueue(token: token)
            return
        }
        var batch = ContiguousArray<WheelCore.Fired>()
        let deliver = state.withLock { state -> Bool in
            guard state.armToken == token else { return false }  // superseded by a re-arm
            swap(&batch, &state.spare)
            fire(&state, into: &batch)
            if batch.isEmpty {
                swap(&batch, &state.spare)  // keep the buffer for the next run
                return false
            }
            return true
        }
        guard deliver else { return }
        run(batch)
        batch.removeAll(keepingCapacity: true)  // releases the closures outside the lock
        state.withLock { state in
            if state.spare.capacity < batch.capacity { swap(&state.spare, &batch) }
        }
    }

    /// One driver run's work under the lock: fires what is due into `batch`, settles waiting delays, re-arms.
    private func fire(_ state: inout State, into batch: inout ContiguousArray<WheelCore.Fired>) {
        state.armed = nil
        state.armedTick = .max
        state.clockedDelays = 0
        // Read under the lock: every waiting delay was armed before this reading.
        let reading = clockReading()
        state.core.advance(to: reading.tick, into: &batch)
        if state.core.hasProvisional { state.core.settleProvisional(now: reading.nanoseconds) }
        if let next = state.core.nextExpiration() { rearm(&state, at: next.tick) }
    }

    private func fireIntoQueue(token: UInt64) {
        let submit = state.withLock { state -> Bool in
            guard state.armToken == token else { return false }
            var queued = ContiguousArray<WheelCore.Fired>()
            swap(&queued, &state.queued)
            fire(&state, into: &queued)
            swap(&queued, &state.queued)
            guard !state.queued.isEmpty, !state.drainPending else { return false }
            state.drainPending = true
            return true
        }
        guard submit else { return }
        if usesPool {
            DeliveryPool.shared.submit(driver)
        } else if let queue, system != nil, let drainItem = driver.drainItem {
            queue.async(execute: drainItem)
        } else if let queue {
            let driver = self.driver
            scheduler.deliver(on: queue) { driver.drainQueued() }
        }
    }

    /// Runs the fired timers waiting for the queue, in firing order, until none is left; called on the delivery
    /// queue or a pool worker. One drain runs at a time (``State/drainPending`` stays set until a drain finds
    /// nothing), so batches never overlap, even on a concurrent queue. Two buffers alternate: no allocation.
    func drainQueued() {
        var batch = ContiguousArray<WheelCore.Fired>()
        while true {
            let more = state.withLock { state -> Bool in
                if batch.capacity < state.queuedSpare.capacity { swap(&batch, &state.queuedSpare) }
                guard !state.queued.isEmpty else {
                    state.drainPending = false
                    if state.queuedSpare.capacity < batch.capacity { swap(&state.queuedSpare, &batch) }
                    return false
                }
                swap(&batch, &state.queued)
                return true
            }
            guard more else { return }
            run(batch)
            batch.removeAll(keepingCapacity: true)  // releases the closures outside the lock
        }
    }

    private func run(_ batch: ContiguousArray<WheelCore.Fired>) {
        // An index loop: unoptimized builds run `for-in` through a generic iterator that allocates per element.
        var index = batch.startIndex
        while index < batch.endIndex {
            if let batchHandler, batch[index].action == nil {
                index = runValues(batch, from: index, on: batchHandler)
                continue
            }
            let fired = batch[index]
            if let action = fired.action {
                action()
            } else {
                handler?.timerFired(value: fired.value)
            }
            index += 1
        }
    }

    /// Hands the value timers from `start` on, up to the next closure timer, to `handler` in batches of up to 128
    /// values (a buffer on the stack); returns the index after them.
    private func runValues(
        _ batch: ContiguousArray<WheelCore.Fired>, from start: Int, on handler: any TimingWheelBatchHandler
    ) -> Int {
        var index = start
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.valueBatch) { buffer in
            while index < batch.endIndex, batch[index].action == nil {
                var count = 0
                while count < Self.valueBatch, index < batch.endIndex, batch[index].action == nil {
                    buffer[count] = batch[index].value
                    count += 1
                    index += 1
                }
                handler.timersFired(values: UnsafeBufferPointer(rebasing: buffer[..<count]), on: self)
            }
        }
        return index
    }

    /// The values handed to a ``TimingWheelBatchHandler`` at once: 1 KiB of stack.
    static var valueBatch: Int { 128 }
}
