/// The bookkeeping of a ``SharedTicker`` as a value: its timer phase, its subscribers, and the commands for the
/// underlying timer, which its owner runs after releasing the lock.
///
/// The ticker never starts, pauses or cancels its timer under its own lock (so there is no lock order between a
/// ticker and its timer). Each event that changes what the timer should do appends a ``TimerCommand`` to a
/// queue, in the order of the events; the first such event while nobody drains returns ``TimerAction/drain``,
/// and its caller runs the queued commands, outside the lock, until ``takeTimerCommands()`` finds none. Events
/// on other threads meanwhile only queue, so the timer sees start, pause and cancel in the order the subscriber
/// count and pause state changed, as if they had run under the lock.
///
/// Illegal transitions (taking commands while nobody drains) fail an assertion in debug builds; in release
/// builds they are ignored.
package struct SharedTickerStateMachine {
    /// Whether the underlying timer should run, with the number of live subscriptions.
    package enum State: Equatable {
        /// No live subscription: the timer is cancelled; `paused` records a ``SharedTicker/pause()`` in effect.
        case stopped(paused: Bool)
        /// `live` subscriptions and not paused: the timer runs.
        case ticking(live: Int)
        /// `live` subscriptions, paused: the timer is paused (or, if it was cancelled, stays so).
        case paused(live: Int)
    }

    /// What the owner does to the underlying timer, in order.
    package enum TimerCommand: Equatable, Sendable {
        case start
        case pause
        case cancel
    }

    /// What an event asks of the owner.
    package enum TimerAction: Equatable {
        case none
        /// Run ``takeTimerCommands()`` until it returns `nil`, performing each command, outside the lock.
        case drain
    }

    package struct Subscriber {
        package let id: UInt64
        package let every: Int
        package let phase: Int
        /// `nil` once the subscription ended (a tombstone until the next compaction).
        package var handler: TempoTimer.Handler?
        package var ownerIsAlive: (@Sendable () -> Bool)?
    }

    /// What a tick delivers: the subscribers as they were when it started, and the slot count before and after.
    package struct Tick {
        package let subscribers: [Subscriber]
        package let slotsBefore: Int
        package let slotsAfter: Int
    }

    package private(set) var state = State.stopped(paused: false)
    private(set) var subscribers: [Subscriber] = []
    private var tombstones = 0
    private var nextID: UInt64 = 1
    /// Grid slots delivered so far, over the ticker's whole life.
    private var slots = 0
    /// Whether a tick took `subscribers` as its snapshot since the array was last copied. A mutation then
    /// copies the array first instead of writing to a buffer that a tick may still be reading outside the
    /// lock: Swift's copy-on-write check would allow the write as soon as the tick dropped its reference,
    /// but that reference count lives in the uninstrumented runtime, so ThreadSanitizer could not see the
    /// hand-off. Copying makes the ordering explicit: a snapshot's buffer is never written again.
    private var snapshotTaken = false
    private var commands: [TimerCommand] = []
    private var draining = false

    package init() {}

    package var isPaused: Bool {
        switch state {
        case .stopped(let paused): paused
        case .ticking: false
        case .paused: true
        }
    }

    package var live: Int {
        switch state {
        case .stopped: 0
        case .ticking(let live), .paused(let live): live
        }
    }

    /// The active subscriptions (those whose owner died are not counted). O(n).
    package var subscriberCount: Int {
        subscribers.reduce(0) { count, subscriber in
            guard subscriber.handler != nil else { return count }
            return count + (subscriber.ownerIsAlive.map { $0() } ?? true ? 1 : 0)
        }
    }

    package func isActive(_ id: UInt64) -> Bool {
        guard let index = index(of: id) else { return false }
        return subscribers[index].handler != nil && (subscribers[index].ownerIsAlive.map { $0() } ?? true)
    }

    // MARK: Events

    /// Adds a subscription (`every` validated by the owner), first considered on the next tick.
    package mutating func subscribe(
        every: Int,
        ownerIsAlive: (@Sendable () -> Bool)?,
        handler: @escaping TempoTimer.Handler
    ) -> (id: UInt64, action: TimerAction) {
        assert(every >= 1, "every must be validated by the owner")
        let id = nextID
        nextID += 1
        unshareSubscribers()
        subscribers.append(
            Subscriber(id: id, every: every, phase: slots % every, handler: handler, ownerIsAlive: ownerIsAlive)
        )
        switch state {
        case .stopped(paused: false):
            state = .ticking(live: 1)
            return (id, queue(.start))
        case .stopped(paused: true):
            state = .paused(live: 1)
        case .ticking(let live):
            state = .ticking(live: live + 1)
        case .paused(let live):
            state = .paused(live: live + 1)
        }
        return (id, .none)
    }

    /// Ends subscription `id`; returns its handler (for the owner to release outside the lock) when it was active.
    package mutating func unsubscribe(_ id: UInt64) -> (handler: TempoTimer.Handler?, action: TimerAction) {
        guard let index = index(of: id), let handler = subscribers[index].handler else { return (nil, .none) }
        unshareSubscribers()
        subscribers[index].handler = nil
        subscribers[index].ownerIsAlive = nil
        tombstones += 1
        var action = TimerAction.none
        switch state {
        case .stopped:
            assertionFailure("an active subscription while no subscription is live")
        case .ticking(1), .paused(1):
            state = .stopped(paused: isPaused)
            subscribers.removeAll()
            tombstones = 0
            action = queue(.cancel)
        case .ticking(let live):
            state = .ticking(live: live - 1)
        case .paused(let live):
            state = .paused(live: live - 1)
        }
        if tombstones > 16 && tombstones * 2 > subscribers.count {
            subscribers.removeAll { $0.handler == nil }
            tombstones = 0
        }
        return (handler, action)
    }

    /// Pauses every subscriber's ticks; does nothing when already paused.
    package mutating func pause() -> TimerAction {
        setPaused(true)
    }

    /// Resumes after ``pause()``; does nothing when not paused.
    package mutating func resume() -> TimerAction {
        setPaused(false)
    }

    /// A tick of the underlying timer that stands for `1 + missed` grid slots starts.
    package mutating func tickStarted(missed: Int) -> Tick {
        let before = slots
        slots += 1 + missed
        snapshotTaken = true
        return Tick(subscribers: subscribers, slotsBefore: before, slotsAfter: slots)
    }

    /// The timer commands queued since the last call, in order, or `nil` (ending the drain) when there are none.
    package mutating func takeTimerCommands() -> [TimerCommand]? {
        guard draining else {
            assertionFailure("takeTimerCommands() without a drain under way")
            return nil
        }
        guard !commands.isEmpty else {
            draining = false
            return nil
        }
        defer { commands.removeAll() }
        return commands
    }

    // MARK: Helpers

    /// Pauses or resumes: a live timer is paused or started again, a stopped one only remembers it.
    private mutating func setPaused(_ paused: Bool) -> TimerAction {
        guard paused != isPaused else { return .none }
        switch state {
        case .stopped:
            state = .stopped(paused: paused)
            return .none
        case .ticking(let live), .paused(let live):
            state = paused ? .paused(live: live) : .ticking(live: live)
            return queue(paused ? .pause : .start)
        }
    }

    private mutating func queue(_ command: TimerCommand) -> TimerAction {
        commands.append(command)
        guard !draining else { return .none }
        draining = true
        return .drain
    }

    /// Makes `subscribers` safe to mutate in place (see `snapshotTaken`).
    private mutating func unshareSubscribers() {
        guard snapshotTaken else { return }
        subscribers = subscribers.map { $0 }
        snapshotTaken = false
    }

    /// Binary search: subscribers are appended with increasing ids.
    private func index(of id: UInt64) -> Int? {
        var low = 0
        var high = subscribers.count
        while low < high {
            let mid = (low + high) / 2
            if subscribers[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < subscribers.count && subscribers[low].id == id ? low : nil
    }
}
