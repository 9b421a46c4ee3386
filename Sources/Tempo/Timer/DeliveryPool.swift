import Dispatch
import TempoLocks

/// Something the delivery pool runs: a timer's mailbox, drained until it is empty.
package protocol DeliveryLane: AnyObject, Sendable {
    /// Runs the lane's queued deliveries on a pool thread.
    func runDeliveries()
}

/// The threads behind ``TimerDelivery/privateQueue``: a fixed set of workers shared by every timer of
/// ``SystemScheduler``.
///
/// A timer whose mailbox has work is put in a first-in-first-out ring; an idle worker takes it and drains it. The
/// pool has one worker per processor (at least two), started the first time they are needed, so thousands of
/// timers due together run on that many threads, and a submission allocates nothing once the ring has grown to
/// the peak number of timers waiting at once. Each timer drains its own mailbox one delivery at a time, so its
/// handler runs never overlap and keep their order; runs of different timers may run in parallel.
///
/// A handler that blocks holds one worker for as long as it blocks: if every worker is blocked, the default
/// delivery of every timer waits. Run blocking work on a queue of your own (``TimerDelivery/queue(_:)``).
///
/// Thread-safety: ``submit(_:)`` may be called from any thread.
final class DeliveryPool: Sendable {
    /// The pool every timer of ``SystemScheduler`` with the default delivery uses.
    static let shared = DeliveryPool(workers: max(2, DriverThread.activeProcessorCount))

    /// The queue the default delivery uses on schedulers other than ``SystemScheduler`` (a test scheduler decides
    /// itself how it runs delivery work, through ``TimerScheduler/execute(on:_:)``).
    static let queue = DispatchQueue(label: "tempo.delivery", attributes: .concurrent)

    private struct State: ~Copyable {
        var ring: [(any DeliveryLane)?] = []
        var head = 0
        var count = 0
        var idle = 0
        var started = 0
    }

    private let workerLimit: Int
    private let state = TempoMutex(State())
    private let wakeups = DispatchSemaphore(value: 0)

    init(workers: Int) {
        workerLimit = workers
    }

    /// Queues `lane` to be run by a worker.
    ///
    /// - Complexity: O(1), amortized over the ring's growth; no allocation once it has grown.
    func submit(_ lane: any DeliveryLane) {
        let (wake, start) = state.withLock { state -> (Bool, Bool) in
            if state.count == state.ring.count { grow(&state) }
            state.ring[(state.head + state.count) % state.ring.count] = lane
            state.count += 1
            if state.idle > 0 {
                state.idle -= 1
                return (true, false)
            }
            guard state.started < workerLimit else { return (false, false) }
            state.started += 1
            return (false, true)
        }
        if wake { wakeups.signal() }
        if start {
            DriverThread.start(name: "tempo.delivery") { [self] in work() }
        }
    }

    private func grow(_ state: inout State) {
        var ring = [(any DeliveryLane)?](repeating: nil, count: max(16, state.ring.count * 2))
        for offset in 0..<state.count {
            ring[offset] = state.ring[(state.head + offset) % state.ring.count]
        }
        state.ring = ring
        state.head = 0
    }

    /// A worker's loop: take the oldest lane and run it, or wait for a submission.
    private func work() {
        while true {
            let lane = state.withLock { state -> (any DeliveryLane)? in
                guard state.count > 0 else {
                    state.idle += 1
                    return nil
                }
                defer {
                    state.ring[state.head] = nil
                    state.head = (state.head + 1) % state.ring.count
                    state.count -= 1
                }
                return state.ring[state.head]
            }
            guard let lane else {
                wakeups.wait()
                continue
            }
            lane.runDeliveries()
        }
    }
}
