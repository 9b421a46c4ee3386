public import Foundation
public import Tempo
import TempoLocks

/// A timer that fires at each date of a ``Plan``, on the wall clock.
///
/// ```swift
/// let plan = try Plan.cron("0 9 * * MON-FRI", in: TimeZone(identifier: "Europe/Berlin")!)
/// let timer = try PlanTimer(plan) { fire in
///     print("report for \(fire.planned), \(fire.missed) missed")
/// }.start()
/// ```
///
/// The handler is a ``PlanHandler``: `.fire` (the common case), `.timer` (the plan timer and the fire), `.weak` (a
/// weak target) or `.mainActor`; the first two also read as a trailing closure (`{ fire in }`, `{ timer, fire in }`),
/// as `TempoTimer`'s `{ tick in }` and `{ timer, tick in }` do.
///
/// ## Timing
/// - **Dates**: after ``start()``, the timer fires for each date of the plan strictly after the moment it
///   started. Each date re-arms the plan timer's one internal one-shot `TempoTimer` (kept for its whole life) on
///   `TimerClock.wall` at that instant, so it **never fires early**, and when the system clock is set (forward or back) the pending date is still
///   met when the clock reads it. The next date is computed after each fire (re-planned), from the plan, not
///   by adding an interval.
/// - **Late dates**: when the timer wakes after more than one date is due (the machine slept, the clock was
///   set forward, a handler ran long), `LateTickPolicy` decides, as for `TempoTimer`: coalesce
///   (default) fires once for the most recent due date with ``PlanFire/missed`` counting the others; burst
///   fires for each (at most ``maximumBurst`` per wakeup, the newest); skip drops them and reports them with the
///   next fire. A date that is merely late fires under every policy. Missed dates are counted up to 1,024; beyond
///   that ``PlanFire/missedIsLowerBound`` says "at least", so a clock set decades ahead costs milliseconds, not
///   one next-date computation per missed date.
/// - **Never twice**: no planned date is fired twice. Dates closer together than a `Date` tells apart (about
///   0.24 µs in 2026) are one date, as ``Plan/nextDates(after:count:)`` lists them: they make one fire. Within a
///   run each date is served once (fired, counted as missed, or dropped): after the wall clock is set back, a
///   running timer waits for the first date after the last one it served, even if earlier dates are in the future
///   again. A timer started again (``start()``) after the clock was set back serves the dates after that start,
///   except any up to the last date it fired.
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
/// ## Label
/// A plan labeled with ``Plan/labeled(_:fileID:line:)`` names the plan timer's wall-clock timer: its
/// `TimerInstruments` events and stall reports, and TempoTesting's armed-timer check, carry the label.
///
/// ## Ownership
/// A running plan timer is kept alive by the pending wall-clock deadline, like `TempoTimer`: releasing your
/// last reference does not stop it (call ``cancel()``).
///
/// ## Thread safety
/// Every method may be called from any thread. Handlers run with the timer's delivery (by default a serial lane of the
/// timer's own on Tempo's threads), one at a time, in date order; no user code runs under the timer's lock.
public final class PlanTimer: Sendable {
    /// The lifecycle state of a ``PlanTimer``.
    ///
    /// An enum, closed: the states of a plan timer's lifecycle, which code switches over exhaustively.
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

    private struct Mutable {
        var state: State = .idle
        var cursor: PlanCursor?
        var nextDate: Int64?
        /// The one wall-clock timer, created at the first arm and re-armed for every later wakeup and run.
        var timer: TempoTimer?
        /// What the timer should be doing, and its version (bumped on every change): see ``syncTimer()``.
        var wanted = Wanted.stopped
        var wantedVersion: UInt64 = 0
        /// This plan timer, while it runs: a running plan timer is kept alive by its pending date (the timer's
        /// handler holds it weakly, so a stopped plan timer and its timer form no cycle).
        var keepAlive: PlanTimer?

        mutating func want(_ wanted: Wanted) {
            self.wanted = wanted
            wantedVersion &+= 1
        }
    }

    /// What the internal timer should be doing.
    private enum Wanted {
        /// Armed for a wakeup (nanoseconds since 1970 on the wall clock).
        case armed(wakeup: Int64)
        /// Not armed.
        case stopped
    }

    /// The plan this timer runs.
    public let plan: Plan
    /// What happens to dates that fall due while the timer could not fire.
    public let latePolicy: LateTickPolicy
    /// How late past a date the fire may run so that wakeups can be batched.
    public let leeway: Duration
    /// Where handlers run (the main queue for a ``PlanHandler/mainActor(_:)`` handler).
    public let delivery: TimerDelivery
    private let scheduler: any TimerScheduler
    private let handler: PlanHandler
    /// The plan's zones whose rules may change while it runs.
    private let watchedZones: [ZoneRules]
    private let mutable = TempoMutex(Mutable())

    /// Creates a plan timer, in the ``State/idle`` state; ``start()`` runs it and returns it, so creating and
    /// starting read as one line.
    ///
    /// The options are those of Tempo's `TimerSchedule`, with the same names and defaults.
    ///
    /// - Parameters:
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where handlers run (default `TimerDelivery.privateQueue`: a serial lane of the timer's own on
    ///     Tempo's threads, so runs never overlap; the timer owns no queue). With `.immediate` the handler, and the
    ///     plan's next-date computation, run on the scheduler's thread.
    ///   - scheduler: The scheduler that provides wall-clock time (default `SystemScheduler.shared`; pass a
    ///     `VirtualClock` in tests).
    ///   - handler: What runs on each fire.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidLeeway`` for a negative or oversized leeway, or
    ///   ``PlanError/Code/invalidArgument`` for a main-actor handler with a delivery other than the main queue.
    public init(
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: PlanHandler
    ) throws(PlanError) {
        try Self.validate(leeway: leeway)
        self.plan = plan
        self.latePolicy = latePolicy
        self.leeway = leeway
        self.delivery = try handler.delivery(for: delivery)
        self.scheduler = scheduler
        self.handler = handler
        self.watchedZones = plan.node.watchedZones
    }

    /// Creates an idle plan timer that calls `body` with each fire: ``init(_:leeway:latePolicy:delivery:scheduler:handler:)``
    /// with ``PlanHandler/fire(_:)``, as a trailing closure.
    ///
    /// ```swift
    /// let timer = try PlanTimer(plan) { fire in print(fire.planned) }.start()
    /// ```
    ///
    /// - Parameters:
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where `body` runs (default `TimerDelivery.privateQueue`).
    ///   - scheduler: The scheduler that provides wall-clock time.
    ///   - body: Called for each fire.
    /// - Throws: ``PlanError`` as ``init(_:leeway:latePolicy:delivery:scheduler:handler:)`` does.
    public convenience init(
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        _ body: @escaping @Sendable (PlanFire) -> Void
    ) throws(PlanError) {
        try self.init(
            plan, leeway: leeway, latePolicy: latePolicy, delivery: delivery, scheduler: scheduler,
            handler: .fire(body))
    }

    /// Creates an idle plan timer that calls `body` with itself and each fire:
    /// ``init(_:leeway:latePolicy:delivery:scheduler:handler:)`` with ``PlanHandler/timer(_:)``, as a trailing
    /// closure.
    ///
    /// - Parameters:
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where `body` runs (default `TimerDelivery.privateQueue`).
    ///   - scheduler: The scheduler that provides wall-clock time.
    ///   - body: Called with the plan timer and each fire.
    /// - Throws: ``PlanError`` as ``init(_:leeway:latePolicy:delivery:scheduler:handler:)`` does.
    public convenience init(
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        _ body: @escaping @Sendable (PlanTimer, PlanFire) -> Void
    ) throws(PlanError) {
        try self.init(
            plan, leeway: leeway, latePolicy: latePolicy, delivery: delivery, scheduler: scheduler,
            handler: .timer(body))
    }

    static func validate(leeway: Duration) throws(PlanError) {
        do {
            try TempoError.validateLeeway(leeway)
        } catch {
            throw PlanError(error)
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
    /// ``cancel()`` or when finished it starts again from now: it serves the plan's dates after this call, even those
    /// an earlier run passed over before the wall clock was set back, except that it never fires a date twice (it
    /// waits for the first date after the last one it fired, when that is later than now).
    ///
    /// - Returns: The timer, so that creating and starting read as one line.
    @discardableResult
    public func start() -> PlanTimer {
        let now = PlanInstant.nanoseconds(scheduler.now(.wall))
        let started = mutable.withLock { mutable -> Bool in
            guard mutable.state != .running else { return false }
            if mutable.cursor == nil {
                mutable.cursor = PlanCursor(node: plan.node, policy: latePolicy, start: now)
            } else {
                mutable.cursor?.restart(at: now)
            }
            mutable.state = .running
            mutable.keepAlive = self
            return true
        }
        if started { advance() }
        return self
    }

    /// Cancels the timer: no date is claimed for delivery after this returns (a fire claimed just before may still
    /// run). Does nothing unless the timer is running.
    public func cancel() {
        let released = mutable.withLock { mutable -> PlanTimer? in
            guard mutable.state == .running else { return nil }
            mutable.state = .cancelled
            mutable.nextDate = nil
            mutable.want(.stopped)
            defer { mutable.keepAlive = nil }
            return mutable.keepAlive
        }
        guard released != nil else { return }
        syncTimer()
    }

    /// Decides what is due, delivers it (outside the lock), and arms the next date.
    private func advance() {
        while true {
            let now = scheduler.now(.wall)
            let nanoseconds = PlanInstant.nanoseconds(now)
            PlanCursor.refresh(watchedZones, now: nanoseconds)
            let step = mutable.withLock { mutable -> (PlanCursor.Decision, Int, PlanTimer?)? in
                guard mutable.state == .running, var cursor = mutable.cursor else { return nil }
                let decision = cursor.decide(now: nanoseconds)
                mutable.cursor = cursor
                var released: PlanTimer?
                switch decision {
                case .finished:
                    mutable.state = .finished
                    mutable.nextDate = nil
                    mutable.want(.stopped)
                    released = mutable.keepAlive
                    mutable.keepAlive = nil
                case .wait(let date):
                    mutable.nextDate = date
                    mutable.want(.armed(wakeup: cursor.wakeup(for: date, now: nanoseconds)))
                case .deliver:
                    break
                }
                return (decision, cursor.fired, released)
            }
            guard let (decision, index, released) = step else { return }
            switch decision {
            case .finished:
                syncTimer()
                _ = released
                return
            case .deliver(let planned, let missed, let missedIsLowerBound):
                if let targetIsAlive = handler.targetIsAlive, !targetIsAlive() {
                    // A weak target died: the timer ends on this fire instead of calling the handler.
                    cancel()
                    return
                }
                let lateness = max(.zero, now - PlanInstant.timerInstant(planned))
                let fire = PlanFire(
                    planned: PlanInstant.date(planned), lateness: lateness, missed: missed, index: index,
                    missedIsLowerBound: missedIsLowerBound)
                handler.run(self, fire)
            case .wait:
                syncTimer()
                return
            }
        }
    }

    /// Brings the internal timer to what the state wants, outside the lock, until no other thread changed the
    /// wish meanwhile.
    ///
    /// The timer is never touched under the plan timer's lock (a `VirtualClock` may run its delivery before
    /// `reschedule` returns). Every thread that changes the wish calls this afterwards and applies the wish until
    /// the version it applied is still the current one, so whichever thread applies last applies the newest wish:
    /// a `cancel()` racing a wakeup's re-arm never leaves the timer armed, nor a `start()` leaves it stopped.
    /// Applying a wish twice re-arms the same wakeup, which at worst wakes the plan once more to find nothing due.
    private func syncTimer() {
        var applied: UInt64?
        // Created outside the lock (creating reads the scheduler's clock); a second one made by a racing thread is
        // dropped idle, never armed.
        let made: TempoTimer? = mutable.withLock { $0.timer } == nil ? makeTimer() : nil
        while true {
            let next = mutable.withLock { mutable -> (UInt64, Wanted, TempoTimer)? in
                guard mutable.wantedVersion != applied else { return nil }
                if mutable.timer == nil { mutable.timer = made }
                guard let timer = mutable.timer else { return nil }
                return (mutable.wantedVersion, mutable.wanted, timer)
            }
            guard let (version, wanted, timer) = next else { return }
            switch wanted {
            // A wakeup past the timer's range (after 2262) wakes early, finds nothing due and re-arms.
            case .armed(let wakeup): timer.rearm(at: PlanInstant.timerInstant(wakeup))
            case .stopped: timer.cancel()
            }
            applied = version
        }
    }

    /// The one wall-clock timer, idle until its first re-arm; its ticks make the plan decide again.
    private func makeTimer() -> TempoTimer {
        var schedule = TimerSchedule.after(.nanoseconds(1), leeway: leeway, delivery: delivery, clock: .wall)
        schedule.label = plan.label
        do {
            return try TempoTimer(schedule, scheduler: scheduler) { [weak self] _ in
                guard let self, mutable.withLock({ $0.state == .running }) else { return }
                advance()
            }
        } catch {
            // Unreachable: the leeway was validated in init.
            preconditionFailure("plan timer could not create its timer for \(schedule): \(error)")
        }
    }
}
