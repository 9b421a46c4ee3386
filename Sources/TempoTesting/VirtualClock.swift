public import Dispatch
import Synchronization
public import Tempo
import TempoLocks

/// A scheduler whose time moves only when a test moves it, so timer code is tested without waiting.
///
/// Pass it as the `scheduler:` of any Tempo type. It keeps one instant per ``TimerClock``; ``advance(by:)``
/// moves all three together and runs every action that falls due, in deadline order (FIFO among equal
/// deadlines, across clocks too), each at its exact deadline: `now` reads the deadline while the action
/// runs. Leeway is ignored, so ticks are never late unless the test makes them late.
///
/// ```swift
/// let clock = VirtualClock()
/// let timer = try TempoTimer(every: .seconds(1), scheduler: clock) { ticks.append($0.index) }
/// timer.start()
/// clock.advance(by: .milliseconds(999))   // nothing yet
/// clock.advance(by: .milliseconds(1))     // tick 1
/// ```
///
/// Besides plain time it simulates the two things real clocks do to timers: ``suspend(for:)`` (the
/// machine sleeps: monotonic time stops while continuous and wall time move on) and
/// ``adjustWallClock(by:)`` (the calendar clock is set forward or back). Time never moves backwards
/// otherwise.
///
/// Delivery: work for a queue is submitted to that queue, and the clock waits for it (and for any work it
/// submits in turn) before it moves on, so when ``advance(by:)`` or a timer method called from the test
/// returns, every handler it triggered has run, on the queue it asked for, and each handler saw `now`
/// at its deadline. Work for no queue runs on the calling thread. Don't call ``advance(by:)`` from a
/// handler, and don't deliver to the main queue from a test that blocks the main thread.
///
/// Thread-safety: every method may be called from any thread; advance from one thread at a time.
public final class VirtualClock: TimerScheduler {
    private struct State: ~Copyable {
        var now: [TimerInstant]
        var queues = [DeadlineQueue(), DeadlineQueue(), DeadlineQueue()]
        var nextID: UInt64 = 1
    }

    private let state: TempoMutex<State>
    /// Work submitted to queues and not finished yet.
    private let outstanding = DispatchGroup()
    /// Threads currently running submitted work: they must not wait for `outstanding` (it includes them).
    private let deliveringThreads = TempoMutex<[CurrentThread.ID: Int]>([:])

    /// 2026-01-01 00:00:00 UTC, the default starting instant of the wall clock.
    public static let defaultWallStart = TimerInstant(offset: .seconds(1_767_225_600))

    /// Creates a virtual clock.
    ///
    /// - Parameters:
    ///   - monotonic: The starting instant of the monotonic clock.
    ///   - continuous: The starting instant of the continuous clock.
    ///   - wall: The starting instant of the wall clock (default 2026-01-01 00:00:00 UTC).
    public init(
        monotonic: TimerInstant = .zero,
        continuous: TimerInstant = .zero,
        wall: TimerInstant = VirtualClock.defaultWallStart
    ) {
        state = TempoMutex(State(now: [monotonic, continuous, wall]))
    }

    private static func index(_ clock: TimerClock) -> Int {
        switch clock {
        case .monotonic: 0
        case .continuous: 1
        case .wall: 2
        }
    }

    // MARK: TimerScheduler

    /// The clock's virtual instant.
    public func now(_ clock: TimerClock) -> TimerInstant {
        state.withLock { $0.now[Self.index(clock)] }
    }

    /// Records `action` to run when the virtual clock reaches `deadline`; leeway is ignored.
    public func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.queues[Self.index(clock)].insert(id: id, deadline: deadline, leeway: .zero, action: action)
            return ScheduledAction(id: id)
        }
    }

    /// Removes a pending action; stale handles are ignored.
    public func cancel(_ action: ScheduledAction) {
        let removed = state.withLock { state -> (@Sendable () -> Void)? in
            for index in state.queues.indices {
                if let action = state.queues[index].remove(id: action.id) { return action }
            }
            return nil
        }
        withExtendedLifetime(removed) {}
    }

    /// Runs `work` on `queue` (or on the calling thread for `nil`) and, unless called from delivered work,
    /// waits until it and everything it submitted in turn has run.
    public func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
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

    /// The number of scheduled actions that have not run or been cancelled, over all clocks.
    public var pendingCount: Int {
        state.withLock { state in state.queues.reduce(0) { $0 + $1.count } }
    }

    /// The number of pending actions on one clock.
    ///
    /// - Parameter clock: The clock.
    /// - Returns: Scheduled actions on `clock` that have not run or been cancelled.
    public func pendingCount(on clock: TimerClock) -> Int {
        state.withLock { $0.queues[Self.index(clock)].count }
    }

    /// Moves every clock forward by `duration`, running each action as its deadline is reached.
    ///
    /// Actions scheduled by running actions are run too if they fall due within the step. Actions whose
    /// deadline had already passed (after ``suspend(for:)`` or ``adjustWallClock(by:)``) run first.
    ///
    /// - Parameter duration: How far to move; zero runs only what is already due.
    /// - Returns: The number of actions run.
    /// - Precondition: `duration` is not negative.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        precondition(duration >= .zero, "VirtualClock cannot move backwards (advance(by: \(duration)))")
        var remaining = duration
        var ran = 0
        while true {
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard let (index, offset) = Self.nextDue(&state, within: remaining) else {
                    for i in state.now.indices { state.now[i] = state.now[i] + remaining }
                    remaining = .zero
                    return nil
                }
                let step = max(offset, .zero)
                for i in state.now.indices { state.now[i] = state.now[i] + step }
                remaining -= step
                return state.queues[index].popFirst(notAfter: state.now[index])?.action
            }
            guard let next else { return ran }
            next()
            ran += 1
        }
    }

    /// Moves every clock forward until `clock` reads `instant`, running what falls due on the way.
    ///
    /// An instant that is not in the future only runs what is already due: time never moves back.
    ///
    /// - Parameters:
    ///   - instant: The instant of `clock` to reach.
    ///   - clock: The clock `instant` belongs to (default ``TimerClock/monotonic``).
    /// - Returns: The number of actions run.
    @discardableResult
    public func advance(to instant: TimerInstant, clock: TimerClock = .monotonic) -> Int {
        advance(by: max(.zero, instant - now(clock)))
    }

    /// Advances to each pending deadline in turn until nothing is pending.
    ///
    /// A repeating timer keeps the clock busy forever, so the run stops after `limit` actions.
    ///
    /// - Parameter limit: The most actions to run.
    /// - Returns: The number of actions run.
    @discardableResult
    public func runUntilIdle(limit: Int = 100_000) -> Int {
        var ran = 0
        while ran < limit {
            let step = state.withLock { state in Self.nextDue(&state, within: TempoError.maximumDuration)?.1 }
            guard let step else { break }
            ran += advance(by: max(step, .zero))
        }
        return ran
    }

    /// Simulates the machine sleeping for `duration`: the continuous and wall clocks move forward, the
    /// monotonic clock does not. Actions that fell due during the sleep then run, most overdue first.
    ///
    /// - Parameter duration: How long the machine sleeps.
    /// - Returns: The number of actions run on waking.
    /// - Precondition: `duration` is not negative.
    @discardableResult
    public func suspend(for duration: Duration) -> Int {
        precondition(duration >= .zero, "a suspension cannot be negative (\(duration))")
        state.withLock { state in
            state.now[1] = state.now[1] + duration
            state.now[2] = state.now[2] + duration
        }
        return advance(by: .zero)
    }

    /// Simulates setting the system's calendar clock: only the wall clock jumps, forward or back.
    ///
    /// Wall-clock deadlines that the jump passed run at once; after a jump back they wait for the wall
    /// clock to reach them again.
    ///
    /// - Parameter offset: How far to move the wall clock (negative sets it back).
    /// - Returns: The number of actions run.
    @discardableResult
    public func adjustWallClock(by offset: Duration) -> Int {
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
