import Dispatch
import Synchronization
import TempoLocks

/// A scheduler for very many one-shot timers — one per connection, request or retry — that are mostly
/// cancelled or pushed back before they fire.
///
/// The wheel keeps its timers in a hierarchical timing wheel (six levels of 64 slots) over one
/// preallocated table: arming, cancelling and pushing a deadline later are O(1), take one short lock and
/// allocate nothing (a ``TimingWheelHandler`` receives a value per timer), or one closure when you arm a
/// closure. A timer costs 32 bytes of table (48 with closures).
///
/// **Timing.** Each timer stores its exact deadline (to the nanosecond, rounded up) and fires at the first
/// tick boundary at or after it: never early, and at most one ``Configuration/tick`` late plus the
/// scheduler's latency, however far out it was armed. A deadline that has already passed fires in the
/// next batch, as soon as possible. Timers due in the same driver run form one batch, delivered in
/// deadline order (equal deadlines in the order the timers were armed).
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
/// **Delivery.** Callbacks run outside the wheel's lock, on ``Configuration/delivery``: by default a
/// serial queue of the wheel; with ``TimerDelivery/immediate`` on the scheduler's driver thread. A
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
        /// A cleared batch buffer kept for the next driver run (driver-thread delivery).
        var spare = ContiguousArray<WheelCore.Fired>()
    }

    let state: TempoMutex<State>
    /// The configuration the wheel was created with.
    public let configuration: Configuration
    let scheduler: any TimerScheduler
    let handler: (any TimingWheelHandler)?
    /// The queue callbacks run on; `nil` for the driver thread.
    let queue: DispatchQueue?
    /// The instant of tick 0: when the wheel was created.
    let origin: TimerInstant
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
    public init(
        configuration: Configuration = Configuration(),
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: (any TimingWheelHandler)? = nil
    ) throws(TempoError) {
        try configuration.validate()
        self.configuration = configuration
        self.scheduler = scheduler
        self.handler = handler
        switch configuration.delivery.kind {
        case .privateQueue: queue = DispatchQueue(label: "Tempo.TimingWheel")
        case .queue(let queue): self.queue = queue
        case .immediate: queue = nil
        }
        origin = scheduler.now(configuration.clock)
        tickNanoseconds = Int64(configuration.tick.attoseconds / 1_000_000_000)
        let core = WheelCore(tickNanoseconds: tickNanoseconds, initialCapacity: configuration.initialCapacity)
        state = TempoMutex(State(core: core))
    }

    deinit {
        if let armed = state.withLock({ $0.armed }) { scheduler.cancel(armed) }
    }

    /// Identifies one armed timer for ``cancel(_:)`` and ``reschedule(_:at:)``.
    ///
    /// A handle is a table index plus a sequence number that is never reused, so a handle whose timer
    /// fired or was cancelled is stale: every operation on it is a harmless no-op. Use a handle only with
    /// the wheel that returned it.
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

    /// The deadline of an armed timer (rounded up to the nanosecond), or `nil` for a stale handle.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: The deadline the timer will fire at or after.
    public func deadline(of handle: Handle) -> TimerInstant? {
        guard handle.wheel == id else { return nil }
        let nanoseconds = state.withLock { $0.core.deadline(handle.index, handle.sequence) }
        return nanoseconds.map { origin + .nanoseconds($0) }
    }

    /// Checks the wheel's invariants and traps when one is broken; a no-op in release builds (checks are compiled
    /// only with `DEBUG`), so tests may call it freely.
    ///
    /// - Complexity: O(capacity) in debug builds, O(1) otherwise.
    public func _checkInvariants() {
        #if DEBUG
        state.withLock { state in
            state.core._checkInvariants()
            if let next = state.core.nextExpiration() {
                precondition(state.armedTick <= next.tick, "driver armed for \(state.armedTick) after \(next.tick)")
                precondition(state.armed != nil, "timers pending but no driver action armed")
            }
        }
        #endif
    }
}

/// The source of ``TimingWheel``'s identities (wrapping: two wheels share an id only 2^32 wheels apart).
private let wheelIDs = Atomic<UInt32>(1)
