package import Dispatch
public import Tempo

/// A scheduler whose time moves only when a test moves it, so timer code is tested without waiting.
///
/// Pass it as the `scheduler:` of any Tempo type. It keeps one instant per `TimerClock`; ``advance(by:)``
/// moves all three together and runs every action that falls due, in deadline order (FIFO among equal
/// deadlines, across clocks too), each at its exact deadline: `now` reads the deadline while the action
/// runs. Leeway is ignored, so ticks are never late unless the test makes them late.
///
/// ```swift
/// let clock = VirtualClock()
/// let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { ticks.append($0.index) }
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
/// Lifetime: a running timer is kept alive by the clock's pending action, but the timer does not keep the clock
/// alive (it holds the clock's shared state). When a test drops its clock, the clock releases
/// everything scheduled on it, so timers left running on it are freed too, and LeakSanitizer stays quiet.
///
/// Thread-safety: every method may be called from any thread; advance from one thread at a time.
public final class VirtualClock: DeliveringScheduler {
    /// Time and queues; what timers keep (see `heldReference`).
    let engine: VirtualClockEngine

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
        engine = VirtualClockEngine(now: [monotonic, continuous, wall])
    }

    deinit {
        engine.close()
    }

    // MARK: TimerScheduler

    /// What Tempo's types keep: the clock's shared time and queues, which do not keep the clock alive.
    ///
    /// So a test that drops its clock (and its timers) frees them even when timers were still running: the
    /// clock's `deinit` releases every pending action. Timers still held by the test then read a frozen time
    /// and never fire. A handler that captures the clock itself keeps it alive through its timer; read time
    /// from the `TimerTick` or capture the clock weakly.
    package var heldReference: any TimerScheduler { engine }

    /// The clock's virtual instant.
    public func now(_ clock: TimerClock) -> TimerInstant {
        engine.now(clock)
    }

    /// Records `action` to run when the virtual clock reaches `deadline`; leeway is ignored.
    public func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        engine.schedule(at: deadline, leeway: leeway, clock: clock, action)
    }

    /// Removes a pending action; stale handles are ignored.
    public func cancel(_ action: ScheduledAction) {
        engine.cancel(action)
    }

    /// Runs `work` on `queue` (or on the calling thread for `nil`) and, unless called from delivered work,
    /// waits until it and everything it submitted in turn has run.
    package func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        engine.execute(on: queue, work)
    }

    // MARK: Moving time

    /// The number of scheduled actions that have not run or been cancelled, over all clocks.
    public var pendingCount: Int {
        engine.pendingCount
    }

    /// The number of pending actions on one clock.
    ///
    /// - Parameter clock: The clock.
    /// - Returns: Scheduled actions on `clock` that have not run or been cancelled.
    public func pendingCount(on clock: TimerClock) -> Int {
        engine.pendingCount(on: clock)
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
        engine.advance(by: duration)
    }

    /// Moves every clock forward until `clock` reads `instant`, running what falls due on the way.
    ///
    /// An instant that is not in the future only runs what is already due: time never moves back.
    ///
    /// - Parameters:
    ///   - instant: The instant of `clock` to reach.
    ///   - clock: The clock `instant` belongs to (default `TimerClock.monotonic`).
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
        engine.runUntilIdle(limit: limit)
    }

    /// Simulates the machine sleeping for `duration`: the continuous and wall clocks move forward, the
    /// monotonic clock does not. Actions that fell due during the sleep then run, most overdue first.
    ///
    /// - Parameter duration: How long the machine sleeps.
    /// - Returns: The number of actions run on waking.
    /// - Precondition: `duration` is not negative.
    @discardableResult
    public func suspend(for duration: Duration) -> Int {
        engine.suspend(for: duration)
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
        engine.adjustWallClock(by: offset)
    }
}
