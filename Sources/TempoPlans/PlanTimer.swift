public import Dispatch
public import Foundation
public import Tempo
import TempoLocks

/// A timer that fires at each date of a ``Plan``, on the wall clock.
///
/// ```swift
/// let plan = try Plan.cron("0 9 * * MON-FRI", in: TimeZone(identifier: "Europe/Berlin")!)
/// let timer = try PlanTimer(plan) { fire in
///     print("report for \(fire.planned), \(fire.missed) missed")
/// }
/// timer.start()
/// ```
///
/// ## Timing
/// - **Dates**: after ``start()``, the timer fires for each date of the plan strictly after the moment it
///   started. Each date is armed as a one-shot `TempoTimer` on `TimerClock.wall` at that instant, so it
///   **never fires early**, and when the system clock is set (forward or back) the pending date is still
///   met when the clock reads it. The next date is computed after each fire (re-planned), from the plan, not
///   by adding an interval.
/// - **Late dates**: when the timer wakes after more than one date is due (the machine slept, the clock was
///   set forward, a handler ran long), `LateTickPolicy` decides, as for `TempoTimer`: coalesce
///   (default) fires once for the most recent due date with ``PlanFire/missed`` counting the others; burst
///   fires for each (at most ``maximumBurst`` per wakeup, the newest); skip drops them and reports them with the
///   next fire. A date that is merely late fires under every policy. Missed dates are counted up to 1,024; beyond
///   that ``PlanFire/missedIsLowerBound`` says "at least", so a clock set decades ahead costs milliseconds, not
///   one next-date computation per missed date.
/// - **Never twice**: each planned date is served once. After the wall clock is set back, the timer waits for
///   the first date after the last one it served, even if earlier dates are in the future again.
/// - **Cancellation**: once ``cancel()`` has returned, no further date is claimed for delivery. At most one fire,
///   claimed before the cancel took effect, may still be entering or running its handler; `cancel()` never
///   waits for user code.
/// - **Time zones**: a plan in the system's local zone (built with `TimeZone.autoupdatingCurrent`) follows it:
///   the timer checks the local-zone configuration (`TZ`, `TZFILE`, the `/etc/localtime` link and its file) at
///   each wakeup, and while waiting wakes at least every ``zoneCheckInterval`` to check it, so a change is noticed
///   within 60 seconds of wall-clock time. After a change the pending date is computed again under the new rules:
///   it moves earlier or later, never fires early, and a local time already passed under the old rules is not
///   served again. Named zones (`Europe/Berlin`) keep the rules Foundation gives them for the life of the
///   process (on Linux, the ICU data built into the Swift runtime): they are not checked. See the
///   "Calendar plans" article.
///
/// ## Ownership
/// A running plan timer is kept alive by the pending wall-clock deadline, like `TempoTimer`: releasing your
/// last reference does not stop it (call ``cancel()``).
///
/// ## Thread safety
/// Every method may be called from any thread. Handlers run on the timer's serial queue, one at a time, in
/// date order; no user code runs under the timer's lock.
public final class PlanTimer: Sendable {
    /// A closure called for each fire.
    public typealias Handler = @Sendable (PlanFire) -> Void

    /// The lifecycle state of a ``PlanTimer``.
    public enum State: Hashable, Sendable {
        /// Created and never started.
        case idle
        /// Started; the next date is armed.
        case running
        /// The plan has no more dates.
        case finished
        /// Cancelled.
        case cancelled
    }

    /// The most fires a `LateTickPolicy.burst` hands over back to back for one wakeup: 1,024. When more
    /// planned dates are due at once (the wall clock was set years ahead), the oldest are dropped and counted in
    /// the first fire's ``PlanFire/missed`` (up to 1,024, then as a lower bound).
    ///
    /// Smaller than `LateTickPolicy.maximumBurst` (1,000,000) on purpose: a `TempoTimer`'s slots are arithmetic,
    /// but each date of a plan is a next-date computation, so a million would hold the timer's queue for seconds.
    public static let maximumBurst = PlanCursor.maximumBurst

    /// The longest a running plan in a watched zone (the system's local zone) waits without checking the zone's
    /// rules: 60 seconds of wall-clock time. A plan waiting for a later date wakes this often, decides nothing is
    /// due, and sleeps again; plans without a watched zone sleep until their date.
    public static let zoneCheckInterval: Duration = .nanoseconds(PlanCursor.zoneCheckNanoseconds)

    /// The latest instant a wall-clock `TempoTimer` accepts as an absolute first tick (`FirstTick.at`, half of
    /// `TempoError.maximumDuration` from 1970: 2116-02-20); a later date is armed as a delay from now instead.
    private static let armLimit = PlanInstant.nanoseconds(
        TimerInstant(offset: TempoError.maximumDuration / 2 - .seconds(1)))

    private struct Mutable {
        var state: State = .idle
        var cursor: PlanCursor?
        var timer: TempoTimer?
        var generation: UInt64 = 0
        var nextDate: Int64?
    }

    /// The plan this timer runs.
    public let plan: Plan
    /// What happens to dates that fall due while the timer could not fire.
    public let latePolicy: LateTickPolicy
    /// How late past a date the fire may run so that wakeups can be batched.
    public let leeway: Duration
    private let scheduler: any TimerScheduler
    private let queue: DispatchQueue
    private let handler: Handler
    /// The plan's zones whose rules may change while it runs.
    private let watchedZones: [ZoneRules]
    private let mutable = TempoMutex(Mutable())

    /// Creates a plan timer, in the ``State/idle`` state; call ``start()`` to run it.
    ///
    /// - Parameters:
    ///   - plan: The plan.
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - queue: Where handlers run (default: a private serial queue). Runs never overlap on a serial queue.
    ///   - scheduler: The scheduler that provides wall-clock time (default `SystemScheduler.shared`; pass a
    ///     `VirtualClock` in tests).
    ///   - handler: Called for each fire.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidLeeway`` for a negative or oversized leeway.
    public init(
        _ plan: Plan,
        latePolicy: LateTickPolicy = .coalesce,
        leeway: Duration = .zero,
        queue: DispatchQueue? = nil,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping Handler
    ) throws(PlanError) {
        try Self.validate(leeway: leeway)
        self.plan = plan
        self.latePolicy = latePolicy
        self.leeway = leeway
        self.scheduler = scheduler
        self.queue = queue ?? DispatchQueue(label: "tempo.plan")
        self.handler = handler
        self.watchedZones = plan.node.watchedZones
    }

    static func validate(leeway: Duration) throws(PlanError) {
        do {
            try TempoError.validateLeeway(leeway)
        } catch {
            throw PlanError(.invalidLeeway, text: error.value, message: error.message)
        }
    }

    /// The timer's lifecycle state.
    public var state: State { mutable.withLock { $0.state } }

    /// The next planned date the timer waits for, or `nil` when it is not running.
    public var nextDate: Date? {
        mutable.withLock { $0.state == .running ? $0.nextDate.map(PlanInstant.date) : nil }
    }

    /// The number of fires since the timer was created.
    public var fireCount: Int { mutable.withLock { $0.cursor?.fired ?? 0 } }

    /// Starts the timer: it fires for the plan's dates after now. Does nothing while running. After
    /// ``cancel()`` or when finished it starts again from now, still never serving a date twice.
    public func start() {
        let now = PlanInstant.nanoseconds(scheduler.now(.wall))
        let started = mutable.withLock { mutable -> Bool in
            guard mutable.state != .running else { return false }
            if mutable.cursor == nil {
                mutable.cursor = PlanCursor(node: plan.node, policy: latePolicy, start: now)
            } else {
                mutable.cursor?.restart(at: now)
            }
            mutable.state = .running
            mutable.generation += 1
            return true
        }
        if started { advance() }
    }

    /// Cancels the timer: no date is claimed for delivery after this returns (a fire claimed just before may still
    /// run). Does nothing unless the timer is running.
    public func cancel() {
        let timer = mutable.withLock { mutable -> TempoTimer? in
            guard mutable.state == .running else { return nil }
            mutable.state = .cancelled
            mutable.generation += 1
            mutable.nextDate = nil
            defer { mutable.timer = nil }
            return mutable.timer
        }
        timer?.cancel()
    }

    /// Decides what is due, delivers it (outside the lock), and arms the next date.
    private func advance() {
        while true {
            let now = scheduler.now(.wall)
            let nanoseconds = PlanInstant.nanoseconds(now)
            PlanCursor.refresh(watchedZones, now: nanoseconds)
            let step = mutable.withLock { mutable -> (UInt64, PlanCursor.Decision, Int, Int64)? in
                guard mutable.state == .running, var cursor = mutable.cursor else { return nil }
                let decision = cursor.decide(now: nanoseconds)
                mutable.cursor = cursor
                var wakeup = Int64.max
                switch decision {
                case .finished:
                    mutable.state = .finished
                    mutable.nextDate = nil
                    mutable.timer = nil
                case .wait(let date):
                    mutable.nextDate = date
                    wakeup = cursor.wakeup(for: date, now: nanoseconds)
                case .deliver:
                    break
                }
                return (mutable.generation, decision, cursor.fired, wakeup)
            }
            guard let (generation, decision, index, wakeup) = step else { return }
            switch decision {
            case .finished:
                return
            case .deliver(let planned, let missed, let missedIsLowerBound):
                let lateness = max(.zero, now - PlanInstant.timerInstant(planned))
                handler(
                    PlanFire(
                        planned: PlanInstant.date(planned), lateness: lateness, missed: missed, index: index,
                        missedIsLowerBound: missedIsLowerBound))
            case .wait:
                arm(wakeup, now: now, generation: generation)
                return
            }
        }
    }

    /// Arms a one-shot wall-clock timer at `wakeup` (the next date, or sooner to check the plan's zones), after
    /// which the timer decides again.
    ///
    /// A wakeup after 2116-02-20 (``armLimit``) is armed as a delay from `now` (`TimerSchedule.after`), which the wall
    /// clock measures from the moment the timer starts, so the deadline is never earlier than `wakeup`: no clamp to a
    /// limit that the wall clock may already have passed (a clock reading 2118 would otherwise re-arm at once,
    /// forever). A delay longer than `TempoError.maximumDuration` wakes early, decides nothing is due and re-arms.
    private func arm(_ wakeup: Int64, now: TimerInstant, generation: UInt64) {
        let schedule: TimerSchedule
        if wakeup <= Self.armLimit {
            schedule = .at(.wall(PlanInstant.timerInstant(wakeup)), leeway: leeway, delivery: .queue(queue))
        } else {
            let delay = min(TempoError.maximumDuration, max(.zero, PlanInstant.timerInstant(wakeup) - now))
            schedule = .after(delay, leeway: leeway, delivery: .queue(queue), clock: .wall)
        }
        let timer: TempoTimer
        do {
            timer = try TempoTimer(schedule, scheduler: scheduler) { [self] _ in
                guard mutable.withLock({ $0.generation == generation && $0.state == .running }) else { return }
                advance()
            }
        } catch {
            // Unreachable: the interval, leeway and instant were validated.
            preconditionFailure("plan timer could not arm \(schedule): \(error)")
        }
        let current = mutable.withLock { mutable -> Bool in
            guard mutable.generation == generation, mutable.state == .running else { return false }
            mutable.timer = timer
            return true
        }
        if current { timer.start() }
    }
}
