import Dispatch
import Synchronization
import TempoLocks

/// A scheduler for very many one-shot timers — one per connection, request or retry — that are mostly
/// cancelled or pushed back before they fire.
///
/// The wheel keeps its timers in a hierarchical timing wheel (six levels of 64 slots) over one
/// preallocated table: arming, cancelling and pushing a deadline later are O(1), take one short lock and
/// allocate nothing (a ``TimingWheelHandler`` receives a value per timer), or one closure when you arm a
/// closure. A timer costs 32 bytes of table (48 with closures); the table grows in fixed chunks of 1,024
/// entries, so at most one chunk is unused. Threads that arm at the same time contend for the one lock: for
/// that, use a ``ShardedTimingWheel``.
///
/// **Timing.** Each timer stores its exact deadline (to the nanosecond, rounded up) and fires at the first
/// tick boundary at or after it: never early, and at most one ``Configuration/resolution`` late plus the
/// scheduler's latency, however far out it was armed. A deadline that has already passed fires in the
/// next batch, as soon as possible. Timers due in the same driver run form one batch, delivered in
/// deadline order (equal deadlines in the order the timers were armed).
///
/// **Relative deadlines.** On ``SystemScheduler``, ``schedule(after:value:)`` and ``schedule(after:_:)`` read no
/// clock when the driver runs within the next tick anyway, or once more than 16 timers were armed with a delay
/// since its last run: the timer then waits without a deadline until the driver's next run (at the next tick
/// boundary, or at once when the wheel was idle), which reads the clock under the wheel's lock and sets the
/// deadline to that reading plus the delay. That reading comes after the call, so the timer never fires before
/// `delay` has elapsed from the call; it may fire up to one tick (plus the scheduler's latency) later than one
/// armed with `schedule(at: now + delay)`. Arming this way adds at most one driver run per tick. Otherwise (a
/// lone timer on a quiet wheel) the call reads the clock, exactly like `schedule(at: now + delay)`.
/// ``deadline(of:)`` and ``reschedule(_:at:)`` settle a waiting timer's deadline at once. On other schedulers (a
/// `VirtualClock` in tests) every call reads the clock, so virtual time stays exact.
///
/// **Driver.** The wheel arms one action on its ``TimerScheduler`` for the tick at which the next
/// slot comes due, and none while it is empty: no periodic wakeups. Arming a timer that is due earlier
/// than that action, from any thread, re-arms it; arming a later one touches only the table. The
/// action may run a little earlier than a timer's deadline when a far slot only cascades its timers to a
/// finer level; such runs fire nothing early. Cancelling makes no scheduler call either, so after the
/// earliest timers are cancelled the action still runs once at its tick, finds nothing due and re-arms for
/// the next slot (or for nothing). With `VirtualClock` as the scheduler, time moves only when the test
/// advances it.
///
/// **Delivery.** Callbacks run outside the wheel's lock, on ``Configuration/delivery``: by default in a
/// serial lane of the wheel on Tempo's shared delivery pool (as ``TimerDelivery/privateQueue`` does for
/// ``TempoTimer``; on other schedulers than ``SystemScheduler``, a serial queue of the wheel); with
/// ``TimerDelivery/queue(_:)`` on that queue, one batch at a time even on a concurrent queue; with
/// ``TimerDelivery/immediate`` on the scheduler's driver thread. A
/// callback may arm, cancel or reschedule timers on the same wheel.
///
/// **Cancellation.** ``cancel(_:)`` returns `true` when it disarmed the timer; once it returns the timer
/// does not fire. It returns `false` when the timer had already been taken for firing (its callback may
/// be running or about to run) or was cancelled; a stale handle is a harmless no-op.
///
/// Releasing the last reference to the wheel cancels its pending timers. The wheel keeps a strong
/// reference to its handler, so a handler should reference its wheel weakly.
///
/// Thread-safety: every method may be called from any thread, including from a callback.
public final class TimingWheel: Sendable {
    typealias Action = @Sendable () -> Void

    struct State: ~Copyable {
        var core: WheelCore
        /// The driver's pending scheduler action, if any.
        var armed: ScheduledAction?
        /// The tick the driver's action is armed for; `Int64.max` when none is.
        var armedTick = Int64.max
        /// Identifies the current driver action, so a superseded one that already started does nothing.
        var armToken: UInt64 = 0
        /// Timers armed with a delay since the driver last ran that read the clock (see ``armRelative``).
        var clockedDelays = 0
        /// A cleared batch buffer kept for the next driver run (driver-thread delivery).
        var spare = ContiguousArray<WheelCore.Fired>()
        /// Fired timers waiting for the delivery queue, in firing order (queue delivery).
        var queued = ContiguousArray<WheelCore.Fired>()
        /// A cleared buffer that the next drain swaps with ``queued`` (queue delivery).
        var queuedSpare = ContiguousArray<WheelCore.Fired>()
        /// Whether a drain of ``queued`` is submitted and has not taken it yet.
        var drainPending = false
    }

    let state: TempoMutex<State>
    /// The configuration the wheel was created with.
    public let configuration: Configuration
    let scheduler: any TimerScheduler
    /// The scheduler as ``SystemScheduler``, armed without a closure; `nil` for other schedulers.
    let system: SystemScheduler?
    /// What the scheduler's action calls: made once, holds this wheel weakly.
    let driver = WheelDriver()
    /// Whether ``schedule(after:value:)`` skips the clock read (see ``TimingWheel`` "Relative deadlines").
    let settlesDelaysLater: Bool
    let handler: (any TimingWheelHandler)?
    /// The handler when it takes its timers in batches (the keyed toolkit types).
    let batchHandler: (any TimingWheelBatchHandler)?
    /// The queue callbacks run on; `nil` for the driver thread or Tempo's delivery pool (``usesPool``).
    let queue: DispatchQueue?
    /// Whether callbacks run in a serial lane of the wheel on Tempo's delivery pool (default delivery on
    /// ``SystemScheduler``).
    let usesPool: Bool
    /// The instant of tick 0: when the wheel was created.
    let origin: TimerInstant
    /// The last deadline the wheel accepts: 292 years (`Int64.max` ns) after ``origin``.
    @usableFromInline var latestDeadline: TimerInstant { origin + TempoError.maximumDuration }
    let tickNanoseconds: Int64
    /// Identifies this wheel in its handles, so a handle from another wheel is a no-op here.
    let id: UInt32 = wheelIDs.wrappingAdd(1, ordering: .relaxed).oldValue

    /// Creates a wheel whose timers are closures and, given a `handler`, values.
    ///
    /// - Parameters:
    ///   - configuration: The tick, clock, delivery and initial capacity.
    ///   - scheduler: What drives the wheel: ``SystemScheduler/shared`` or, in tests, a `VirtualClock`.
    ///   - handler: The receiver of timers armed with a value; required by ``schedule(at:value:)``.
    /// - Throws: ``TempoError`` when the configuration is invalid; see ``Configuration/validate()``.
    public convenience init(
        configuration: Configuration = Configuration(),
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: (any TimingWheelHandler)? = nil
    ) throws(TempoError) {
        try self.init(
            configuration: configuration, scheduler: scheduler, handler: handler,
            settlesDelaysLater: scheduler is SystemScheduler)
    }

    /// Creates a wheel, choosing how relative deadlines are measured: `settlesDelaysLater` arms
    /// ``schedule(after:value:)`` without a clock read (the default on ``SystemScheduler``); tests set it on a
    /// `VirtualClock` to check that such timers never fire early.
    package init(
        configuration: Configuration,
        scheduler: any TimerScheduler,
        handler: (any TimingWheelHandler)?,
        settlesDelaysLater: Bool
    ) throws(TempoError) {
        try configuration.validate()
        self.configuration = configuration
        self.scheduler = scheduler
        self.system = scheduler as? SystemScheduler
        self.settlesDelaysLater = settlesDelaysLater
        self.handler = handler
        self.batchHandler = handler as? any TimingWheelBatchHandler
        switch configuration.delivery.kind {
        case .privateQueue where scheduler is SystemScheduler:
            queue = nil
            usesPool = true
        case .privateQueue:
            queue = DispatchQueue(label: "Tempo.TimingWheel")
            usesPool = false
        case .queue(let queue):
            self.queue = queue
            usesPool = false
        case .immediate:
            queue = nil
            usesPool = false
        }
        origin = scheduler.now(configuration.clock)
        tickNanoseconds = configuration.resolution.nanoseconds(rounded: .down)
        let core = WheelCore(tickNanoseconds: tickNanoseconds, initialCapacity: configuration.initialCapacity)
        state = TempoMutex(State(core: core))
        driver.wheel = self
        driver.drainItem = DispatchWorkItem { [weak driver] in driver?.drainQueued() }
    }

    deinit {
        if let armed = state.withLock({ $0.armed }) { scheduler.cancel(armed) }
    }

    /// Identifies one armed timer for ``cancel(_:)`` and ``reschedule(_:at:)``.
    ///
    /// A handle is a table index plus a sequence number that is never reused, so a handle whose timer
    /// fired or was cancelled is stale: every operation on it is a harmless no-op. Use a handle only with
    /// the wheel that returned it: a handle also names its wheel by a 32-bit number, so a handle passed to another
    /// wheel is a no-op there, unless 2^32 wheels were created in the process between the two wheels (the number
    /// wraps), in which case it acts on that wheel's timer if one has the same index and sequence number.
    public struct Handle: Hashable, Sendable {
        let wheel: UInt32
        let index: UInt32
        let sequence: UInt64
    }

    /// The number of armed timers (not yet fired or cancelled).
    public var count: Int {
        state.withLock { $0.core.count }
    }

    /// The current instant of the wheel's clock, read from its scheduler.
    public var now: TimerInstant {
        scheduler.now(configuration.clock)
    }

    /// Whether `handle` names a timer that is still armed.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: `false` once the timer has been taken for firing or was cancelled.
    public func isArmed(_ handle: Handle) -> Bool {
        guard handle.wheel == id else { return false }
        return state.withLock { $0.core.isArmed(handle.index, handle.sequence) }
    }

    /// The deadline of an armed timer on the wheel's clock (rounded up to the nanosecond), or `nil` for a stale
    /// handle: ``deadline(of:)`` without the clock.
    package func instantDeadline(of handle: Handle) -> TimerInstant? {
        guard handle.wheel == id else { return nil }
        let nanoseconds = state.withLock { state -> Int64? in
            guard state.core.isArmed(handle.index, handle.sequence) else { return nil }
            if state.core.isProvisional(handle.index),
                let expiration = state.core.settle(handle.index, now: clockReading().nanoseconds),
                expiration < state.armedTick
            {
                rearm(&state, at: expiration)
            }
            return state.core.deadline(handle.index, handle.sequence)
        }
        return nanoseconds.map { origin + .nanoseconds($0) }
    }

    /// The heap bytes the wheel's tables hold (entries, closures, chunk directories): a live count for tests and
    /// benchmarks to check allocator readings against.
    package var tableBytes: Int {
        state.withLock { $0.core.tableBytes }
    }

    /// Checks the wheel's invariants and traps when one is broken; a no-op in release builds (checks are compiled
    /// only with `DEBUG`), so tests may call it freely.
    ///
    /// - Complexity: O(capacity) in debug builds, O(1) otherwise.
    package func _checkInvariants() {
        #if DEBUG
        state.withLock { state in
            state.core._checkInvariants()
            if let next = state.core.nextExpiration() {
                precondition(state.armedTick <= next.tick, "driver armed for \(state.armedTick) after \(next.tick)")
                precondition(state.armed != nil, "timers pending but no driver action armed")
            }
            if state.core.hasProvisional {
                let now = state.core.now
                precondition(state.armedTick <= now + 1, "delays wait but the driver is armed for \(state.armedTick)")
                precondition(state.armed != nil, "delays wait but no driver action armed")
            }
        }
        #endif
    }
}

/// The source of ``TimingWheel``'s identities (wrapping: two wheels share an id only 2^32 wheels apart).
private let wheelIDs = Atomic<UInt32>(1)
