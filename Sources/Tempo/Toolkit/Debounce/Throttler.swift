import Synchronization
import TempoLocks

/// Runs an action at most once per interval however often it is called: scroll handlers, progress reports,
/// "save at most every 5 s".
///
/// ```swift
/// let progress = try Throttler<Double>(every: .milliseconds(100), edge: .both) { fraction in
///     progressBar.value = fraction
/// }
/// for chunk in download { progress.call(chunk.fraction) }
/// ```
///
/// ## The default: leading edge
/// A throttler runs the first call of a window at once and drops the rest (``Edge/leading``) unless you pass an
/// `edge:`. That is what the throttlers Tempo replaces do (Repeat's `Throttler`, the usual GCD "ignore calls for
/// n seconds" wrapper), so a migrated throttler runs exactly as often as before, and it never runs an action
/// later than the call that caused it. Choose ``Edge/both`` when the last value of a burst must not be lost
/// (a progress bar's final 100 %), or ``Edge/trailing`` for "only the latest, once per window".
///
/// ## Which calls run when
/// A run opens a *window* of `interval`; no other run starts inside it. With `interval` 1 s and calls at
/// 0, 0.3, 0.6, 1.5 and 3.0 s (each with its time as the value):
///
/// | Edge | Runs (time: value) |
/// | --- | --- |
/// | ``Edge/leading`` | 0: 0, 1.5: 1.5, 3.0: 3.0 |
/// | ``Edge/trailing`` | 1: 0.6, 2: 1.5, 4: 3.0 |
/// | ``Edge/both`` | 0: 0, 1: 0.6, 2: 1.5, 3.0: 3.0 |
///
/// - ``Edge/leading``: a call outside a window runs at once and opens a window; calls inside it are dropped.
/// - ``Edge/trailing``: a call outside a window opens one without running; the last call made inside the
///   window runs when it ends, and that run opens the next window.
/// - ``Edge/both``: a call outside a window runs at once and opens a window; if calls came inside it, the
///   last one runs when it ends and opens the next window; otherwise the window closes.
/// - A window that ends at the same instant as a call ends first (on a `VirtualClock`, `advance` runs the
///   window's end before the test's next call).
/// - "At once" means through the delivery: before ``call(_:)`` returns on a `VirtualClock`, as soon as the
///   queue gets to it on ``SystemScheduler``. Runs never overlap one another.
///
/// ## Thread safety
/// Every method may be called from any thread, including from the action. No user code runs under the lock.
public final class Throttler<Value: Sendable>: Sendable {
    /// Which end of a window runs the action.
    ///
    /// A struct with static members rather than an enum, so that a later version can add an edge: compare with `==`.
    public struct Edge: Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The edges, for Tempo's own exhaustive switches.
        package enum Kind: Hashable, Sendable, CaseIterable {
            case leading
            case trailing
            case both
        }

        /// Which edge this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// The first call of a window runs at once; the others are dropped.
        public static var leading: Edge { Edge(kind: .leading) }
        /// The last call of a window runs when the window ends.
        public static var trailing: Edge { Edge(kind: .trailing) }
        /// The first call runs at once and the last call of the window, if any, when it ends.
        public static var both: Edge { Edge(kind: .both) }

        /// Every edge this version knows: ``leading``, ``trailing`` and ``both``.
        public static var allCases: [Edge] { Kind.allCases.map(Edge.init(kind:)) }

        /// `leading`, `trailing` or `both`.
        public var description: String { "\(kind)" }
    }

    /// What ``Throttler/call(_:)`` did with a value.
    ///
    /// A struct with static members rather than an enum, so that a later version can add an outcome: compare with
    /// `==`.
    public struct Outcome: Hashable, Sendable, CustomStringConvertible {
        /// The outcomes, for Tempo's own exhaustive switches.
        package enum Kind: Hashable, Sendable {
            case ranNow
            case deferred
            case dropped
        }

        /// Which outcome this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// The value runs at once (leading edge) and a window opened.
        public static var ranNow: Outcome { Outcome(kind: .ranNow) }
        /// The value waits for the end of the window; a later call in the same window replaces it.
        public static var deferred: Outcome { Outcome(kind: .deferred) }
        /// The value was dropped (leading edge only, inside a window).
        public static var dropped: Outcome { Outcome(kind: .dropped) }

        /// `ranNow`, `deferred` or `dropped`.
        public var description: String { "\(kind)" }
    }

    let state: TempoMutex<ThrottlerStateMachine<Value>>
    let timer: TempoTimer
    let action: @Sendable (Value) -> Void

    /// Which end of a window runs the action.
    public let edge: Edge
    /// The minimum time between two runs.
    public let interval: Duration

    /// Creates a throttler with no window open.
    ///
    /// - Parameters:
    ///   - interval: The minimum time between two runs.
    ///   - edge: ``Edge/leading`` (default), ``Edge/trailing`` or ``Edge/both``.
    ///   - leeway: How late a window may end to batch wakeups.
    ///   - delivery: Where the action runs (default a private serial queue).
    ///   - clock: The clock the interval is measured on.
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    ///   - action: Called with the value of each run. For a throttler without a value (`Value` is `Void`), a closure
    ///     or function without parameters: `try Throttler(every: .seconds(1)) { save() }`.
    /// - Throws: ``TempoError`` when `interval` or `leeway` is invalid.
    public init(
        every interval: Duration,
        edge: Edge = .leading,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        action: @escaping @Sendable (Value) -> Void
    ) throws(TempoError) {
        let relay = WeakRelay<Throttler<Value>>()
        let configuration = TempoTimer.Configuration(interval: interval, repeats: .once, leeway: leeway, clock: clock)
        timer = try relay.timer(configuration, delivery: delivery, scheduler: scheduler) { throttler, tick in
            throttler.handle(tick)
        }
        self.edge = edge
        self.interval = interval
        self.action = action
        state = TempoMutex(ThrottlerStateMachine(edge: edge))
        relay.object = self
    }

    deinit {
        timer.cancel()
    }

    /// Whether a window is open (a run happened, or a trailing run is waiting, less than ``interval`` ago).
    public var isWindowOpen: Bool { state.withLock { $0.isWindowOpen } }

    /// Offers `value` to the throttler; see the type's table for when it runs.
    ///
    /// - Parameter value: The value for the action.
    /// - Returns: Whether the value runs now, waits for the window's end, or was dropped.
    @discardableResult
    public func call(_ value: Value) -> Outcome {
        let (outcome, action) = state.withLock { $0.call(value) }
        switch action {
        case .startTimerAndFire:
            timer.start()
            timer.fire()
        case .startTimer:
            timer.start()
        case .none:
            break
        }
        return outcome
    }

    /// Closes the window and drops a waiting trailing value (and a leading run not yet started).
    ///
    /// - Returns: Whether a value was waiting.
    @discardableResult
    public func cancel() -> Bool {
        let dropped = state.withLock { $0.cancel() }
        timer.cancel()
        return dropped
    }

    private func handle(_ tick: TimerTick) {
        if tick.isManual {
            if let value = state.withLock({ $0.leadingRunStarted() }) { action(value) }
            return
        }
        guard case .runTrailing(let value) = state.withLock({ $0.windowEnded() }) else { return }
        try? timer.reset()  // the trailing run opens the next window
        action(value)
    }
}

extension Throttler where Value == Void {
    /// Offers a call; see the type's table for when it runs.
    ///
    /// - Returns: Whether the call runs now, waits for the window's end, or was dropped.
    @discardableResult
    public func call() -> Outcome {
        call(())
    }
}
