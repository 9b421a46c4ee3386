import Synchronization
import TempoLocks

/// One timer shared by many subscribers: views or models that each want "every second" subscribe to one
/// ticker instead of each owning a timer.
///
/// ```swift
/// let ticker = try SharedTicker(.every(.milliseconds(250)))
/// let fast = try ticker.subscribe { tick in redrawSpinner() }               // every 250 ms
/// let clock = try ticker.subscribe(everyNth: 4) { tick in redrawClock() }      // every second
/// try ticker.subscribe(everyNth: 20, handler: .weak(model) { model, _ in model.save() })  // every 5 s while `model` lives
/// ```
///
/// ## Timing
/// - **Start and stop**: the first subscriber starts the underlying timer (its first tick is due one interval
///   later) and the last one leaving cancels it, so no deadline is armed while nobody listens. A later
///   subscriber starts a fresh grid.
/// - **Every n-th tick**: a subscription made with `every: n` is called on the n-th, 2n-th, ... tick after
///   it subscribed. Ticks are counted as grid slots, so a coalesced tick (see ``LateTickPolicy``) that folds
///   in a subscriber's slot calls it once.
/// - **Pause** (``pause()``) keeps the time left to the next tick, for every subscriber; ``resume()``
///   continues. Subscribing or leaving while paused starts or stops nothing until ``resume()``.
/// - **Order**: subscribers are called in the order they subscribed, one after the other, on the ticker's
///   delivery; runs of one tick never overlap with the next.
///
/// ## Changes during a tick
/// The subscribers of a tick are fixed when the tick starts:
/// - a subscription made during a tick (for example from a handler) is first considered on the next tick;
/// - a subscription ended during a tick (cancelled, released, or by another handler of the same tick) is
///   not called for the rest of that tick, unless its call had already begun on another thread.
///
/// ## Ending a subscription
/// A ``TickerSubscription`` ends when you call ``TickerSubscription/cancel()`` or release the token. A
/// subscription with a ``TimerHandler/weak(_:_:)`` handler (``subscribe(everyNth:handler:)``) ends when its target
/// dies: the target needs no cleanup code. Tokens keep the ticker alive; keep a reference to a ticker that has
/// weak-target subscriptions.
///
/// ## Cost
/// Subscribers live in one contiguous array that each tick reads as a snapshot: a tick allocates nothing in the
/// ticker and costs one indirect call per subscriber due. The first subscribe or leave after a tick copies the
/// array (O(n)), so a snapshot is never written to while a tick reads it; otherwise subscribing is O(1)
/// amortized and leaving O(log n) amortized (tombstones are compacted when they are half the array).
///
/// ## Thread safety
/// Every method may be called from any thread, including from a subscriber's handler. No user code runs
/// under the ticker's lock.
public final class SharedTicker: Sendable {
    /// The bookkeeping; the underlying timer is started, paused and cancelled only outside this lock (see
    /// ``SharedTickerStateMachine``).
    let state = TempoMutex(SharedTickerStateMachine())
    /// Bumped (under the lock) whenever a subscription ends, so a tick under way knows to re-check.
    let removals = Atomic<UInt64>(0)
    let timer: TempoTimer
    /// The subscription made under each id by ``subscribe(id:everyNth:handler:)`` (entries of ended subscriptions stay
    /// until their id subscribes again: removing an ended subscription does nothing).
    let subscriptionsByID = TempoMutex<[SubscriberID: UInt64]>([:])

    /// The period of the underlying timer.
    public let interval: Duration

    /// Creates a ticker; nothing is armed until the first subscriber arrives.
    ///
    /// ```swift
    /// let ticker = try SharedTicker(.every(.seconds(1), leeway: .milliseconds(50)))
    /// let token = try ticker.subscribe { tick in redraw(tick) }
    /// ```
    ///
    /// - Parameters:
    ///   - schedule: The underlying timer's schedule: an ``TimerSchedule/every(_:repeats:first:leeway:latePolicy:delivery:clock:)``
    ///     schedule that repeats forever (its interval is the finest any subscriber gets). Its delivery is where
    ///     every subscriber's handler runs (``TimerHandler/mainActor(_:)`` subscribers: see
    ///     ``subscribe(everyNth:handler:)``).
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    /// - Throws: ``TempoError`` when the interval or leeway is invalid, or with ``TempoError/Code/invalidArgument``
    ///   for a one-shot or finite schedule (a ticker ticks for as long as it has subscribers).
    public init(_ schedule: TimerSchedule, scheduler: any TimerScheduler = SystemScheduler.shared) throws(TempoError) {
        guard let interval = schedule.interval, schedule.repeats == .forever else {
            throw TempoError(
                .invalidArgument, value: "\(schedule.repeats)",
                message:
                    "a shared ticker repeats forever: use .every(_:) without a count, got repeats \(schedule.repeats)")
        }
        let relay = WeakRelay<SharedTicker>()
        self.interval = interval
        let configuration = try schedule.configuration { scheduler.now(schedule.clock) }
        timer = try relay.timer(
            configuration, delivery: schedule.delivery, label: schedule.label, scheduler: scheduler
        ) { ticker, tick in ticker.deliver(tick) }
        relay.object = self
    }

    deinit {
        timer.cancel()
    }

    /// The number of active subscriptions (subscriptions whose weak target died are not counted).
    ///
    /// - Complexity: O(n) in the number of subscriptions.
    public var subscriberCount: Int {
        state.withLock { $0.subscriberCount }
    }

    /// Whether the underlying timer is armed: there is a subscriber and the ticker is not paused.
    public var isTicking: Bool { timer.state == .running }

    /// Whether ``pause()`` is in effect.
    public var isPaused: Bool { state.withLock { $0.isPaused } }

    /// Pauses the ticks for every subscriber, keeping the time left to the next tick.
    ///
    /// Ticks already handed to delivery still run. Does nothing when already paused.
    public func pause() {
        perform(state.withLock { $0.pause() })
    }

    /// Resumes the ticks after ``pause()``: the next tick is due after the time that was left when it paused
    /// (or one interval from now if the last subscriber left meanwhile and a new one came).
    public func resume() {
        perform(state.withLock { $0.resume() })
    }

    /// Runs the queued timer commands outside the lock, until none is left (see ``SharedTickerStateMachine``).
    func perform(_ action: SharedTickerStateMachine.TimerAction) {
        guard action == .drain else { return }
        while let commands = state.withLock({ $0.takeTimerCommands() }) {
            for command in commands {
                switch command {
                case .start: timer.start()
                case .pause: timer.pause()
                case .cancel: timer.cancel()
                }
            }
        }
    }
}

/// A subscriber id of ``SharedTicker/subscribe(id:everyNth:handler:)``.
///
/// `@unchecked Sendable`: `AnyHashable` is not `Sendable`, but the only initializer takes a `Hashable & Sendable`
/// value, so the wrapped value is `Sendable`.
struct SubscriberID: Hashable, @unchecked Sendable {
    let base: AnyHashable
    init(_ id: some Hashable & Sendable) { base = AnyHashable(id) }
}
