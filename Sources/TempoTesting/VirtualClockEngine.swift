import Dispatch
import Synchronization
import Tempo
import TempoLocks

/// The time and queues of a ``VirtualClock``, shared by the clock and by everything scheduled on it.
///
/// Timers keep this engine (the clock's `heldReference`), not the clock: a running timer's
/// pending action lives in the engine's queues and keeps the timer alive, so if the timer kept the clock,
/// clock and timer would keep each other alive forever once the test dropped both. When the last reference
/// to the ``VirtualClock`` goes, its `deinit` calls ``close()``: the queues are emptied (releasing every
/// scheduled action and, with it, every timer nothing else holds) and later actions are not kept. Time
/// then stays where it was.
///
/// Thread-safety: every method may be called from any thread; advance from one thread at a time.
final class VirtualClockEngine: EngineView {
    private struct State: ~Copyable {
        var now: [TimerInstant]
        var queues = [DeadlineQueue(), DeadlineQueue(), DeadlineQueue()]
        var nextID: UInt64 = 1
        /// Set once the clock was released: nothing can advance time any more, so nothing is kept.
        var closed = false
        /// Counts schedules, cancels, deliveries and actions run: what auto-advancing watches to tell that the
        /// code under test has settled.
        var activity: UInt64 = 0
        /// Scopes of ``VirtualClock/holdingTime(_:)`` in progress: auto-advancing waits while any is open.
        var holds = 0
        /// Sleeps on the clock whose deadline passed and whose task has not run since: see ``SleepTracker``.
        var woken = 0
        /// The pending actions that can be named: armed through ``VirtualClock/site(_:outlivesTest:fileID:line:)``,
        /// or while a ``TimerLabel`` was bound (a labeled timer, a job's wait).
        var sites: [UInt64: VirtualClock.ArmedTimer] = [:]
    }

    private let state: TempoMutex<State>
    /// Work submitted to queues and not finished yet.
    private let outstanding = DispatchGroup()
    /// Threads currently running submitted work: they must not wait for `outstanding` (it includes them).
    private let deliveringThreads = TempoMutex<[CurrentThread.ID: Int]>([:])
    /// The executors of the auto-advancing runs in progress (see ``VirtualClockEngine/noteClockUse()``).
    let runExecutors = TempoMutex<[UnownedTaskExecutor]>([])
    /// Reads and sleeps of the clock during a run from tasks that do not run on the run's executor.
    let foreignTaskUses = Atomic<Int>(0)

    init(now: [TimerInstant]) {
        state = TempoMutex(State(now: now))
    }

    /// Drops every pending action (outside the lock: they may hold the last reference to their timers) and
    /// keeps no action scheduled later.
    func close() {
        let dropped = state.withLock { state -> [DeadlineQueue] in
            state.closed = true
            state.sites = [:]
            defer { state.queues = [DeadlineQueue(), DeadlineQueue(), DeadlineQueue()] }
            return state.queues
        }
        withExtendedLifetime(dropped) {}
    }

    // MARK: TimerScheduler

    /// The engine is its own view: ``EngineView`` schedules an action here with no site and no wrapper.
    var engine: VirtualClockEngine { self }

    func now(_ clock: TimerClock) -> TimerInstant {
        state.withLock { $0.now[clock.index] }
    }

    /// Schedules `action`, remembering `site` and the label of what is being armed (``TimerLabel/arming``, when
    /// either is known) until it runs or is cancelled.
    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        site: VirtualClock.CreationSite?,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        let label = TimerLabel.arming
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.activity &+= 1
            guard !state.closed else { return ScheduledAction(id: id) }
            let slot = state.queues[clock.index].insert(id: id, deadline: deadline, leeway: .zero, action: action)
            if site != nil || label != nil {
                state.sites[id] = VirtualClock.ArmedTimer(site: site, label: label, clock: clock, deadline: deadline)
            }
            return ScheduledAction(id: id, slot: slot)
        }
    }

    func cancel(_ action: ScheduledAction) {
        let removed = state.withLock { state -> DeadlineQueue.Work? in
            state.activity &+= 1
            state.sites[action.id] = nil
            for index in state.queues.indices {
                if let work = state.queues[index].remove(id: action.id, slot: action.slot) { return work }
            }
            return nil
        }
        withExtendedLifetime(removed) {}
    }

    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.activity &+= 1 }
        guard let queue else {
            work()
            return
        }
        outstanding.enter()
        // The box lets the work (and what it captures) be released before `leave()`, so that once
        // `settle()` returns nothing of it is still alive.
        let box = WorkBox(work)
        queue.async { [self] in
            let thread = CurrentThread.id
            deliveringThreads.withLock { $0[thread, default: 0] += 1 }
            box.run()
            deliveringThreads.withLock { threads in
                threads[thread, default: 1] -= 1
                if threads[thread] == 0 { threads[thread] = nil }
            }
            outstanding.leave()
        }
        settle()
    }

    /// Waits for submitted work, unless the caller is itself delivered work.
    private func settle() {
        let thread = CurrentThread.id
        guard deliveringThreads.withLock({ $0[thread] == nil }) else { return }
        outstanding.wait()
    }

    // MARK: Moving time

    var pendingCount: Int {
        state.withLock { state in state.queues.reduce(0) { $0 + $1.count } }
    }

    func pendingCount(on clock: TimerClock) -> Int {
        state.withLock { $0.queues[clock.index].count }
    }

    func advance(by duration: Duration) -> Int {
        precondition(duration >= .zero, "VirtualClock cannot move backwards (advance(by: \(duration)))")
        var remaining = duration
        var ran = 0
        while true {
            let next = state.withLock { state -> DeadlineQueue.Work? in
                guard let (index, offset) = Self.nextDue(&state, within: remaining) else {
                    for i in state.now.indices { state.now[i] = state.now[i] + remaining }
                    remaining = .zero
                    return nil
                }
                let step = max(offset, .zero)
                for i in state.now.indices { state.now[i] = state.now[i] + step }
                remaining -= step
                state.activity &+= 1
                guard let popped = state.queues[index].popFirst(notAfter: state.now[index]) else { return nil }
                state.sites[popped.entry.id] = nil
                return popped.work
            }
            guard let next else { return ran }
            next.run()
            ran += 1
        }
    }

    func runUntilIdle(limit: Int) -> Int {
        var ran = 0
        while ran < limit {
            let step = state.withLock { state in Self.nextDue(&state, within: TempoError.maximumDuration)?.1 }
            guard let step else { break }
            ran += advance(by: max(step, .zero))
        }
        return ran
    }

    /// Advances to the earliest pending deadline (over all clocks) and runs what is due there; 0 if none.
    func advanceToNextDeadline() -> Int {
        let step = state.withLock { state in Self.nextDue(&state, within: TempoError.maximumDuration)?.1 }
        guard let step else { return 0 }
        return advance(by: max(step, .zero))
    }

    /// The activity counter and the number of open holds and woken sleepers, read together.
    var activitySnapshot: (activity: UInt64, holds: Int, woken: Int) {
        state.withLock { ($0.activity, $0.holds, $0.woken) }
    }

    /// The pending actions: those armed through a creation site or with a label with them, the others without.
    var armedActions: [VirtualClock.ArmedTimer] {
        state.withLock { state in
            var armed: [VirtualClock.ArmedTimer] = []
            var unnamed: [TimerClock: Int] = [:]
            for (_, entry) in state.sites.sorted(by: { $0.key < $1.key }) {
                armed.append(entry)
                unnamed[entry.clock, default: 0] -= 1
            }
            for clock in TimerClock.allCases {
                let others = state.queues[clock.index].count + unnamed[clock, default: 0]
                for _ in 0..<max(0, others) {
                    armed.append(VirtualClock.ArmedTimer(site: nil, label: nil, clock: clock, deadline: nil))
                }
            }
            return armed
        }
    }

    /// Counts a sleeper as woken (`+1`) or as running again (`-1`).
    func changeWoken(by delta: Int) {
        state.withLock { state in
            state.woken += delta
            state.activity &+= 1
        }
    }

    /// Opens (`+1`) or closes (`-1`) a hold on auto-advancing.
    func changeHolds(by delta: Int) {
        state.withLock { state in
            state.holds += delta
            state.activity &+= 1
        }
    }

    func suspend(for duration: Duration) -> Int {
        precondition(duration >= .zero, "a suspension cannot be negative (\(duration))")
        state.withLock { state in
            state.now[1] = state.now[1] + duration
            state.now[2] = state.now[2] + duration
        }
        return advance(by: .zero)
    }

    func adjustWallClock(by offset: Duration) -> Int {
        state.withLock { state in state.now[2] = state.now[2] + offset }
        return advance(by: .zero)
    }

    /// The clock index and offset from now of the earliest pending action, if it falls within `limit`.
    private static func nextDue(_ state: inout State, within limit: Duration) -> (Int, Duration)? {
        var best: (index: Int, offset: Duration, id: UInt64)?
        for index in state.queues.indices {
            guard let entry = state.queues[index].earliestDeadline() else { continue }
            let offset = entry.deadline - state.now[index]
            guard offset <= limit else { continue }
            if let current = best, (current.offset, current.id) < (offset, entry.id) { continue }
            best = (index, offset, entry.id)
        }
        return best.map { ($0.index, $0.offset) }
    }
}

/// Holds submitted work until it has run, then drops it.
private final class WorkBox: Sendable {
    private let work: TempoMutex<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = TempoMutex(work)
    }

    func run() {
        let work = self.work.withLock { work in
            defer { work = nil }
            return work
        }
        work?()
    }
}
