import Synchronization
import TempoLocks

/// The process's timer instruments: add a ``TimerInstrument`` here to see every timer's ticks, handler durations,
/// stalls and pending counts.
///
/// ```swift
/// let registration = try TimerInstruments.add(MyInstrument())
/// // ...
/// TimerInstruments.remove(registration)
/// ```
///
/// Instruments are process-wide, not per scheduler: the timers of ``SystemScheduler/shared`` belong to the whole
/// process (its driver threads and delivery pool are shared by every library in it), and the backends an
/// instrument feeds (swift-metrics' `MetricsSystem`, swift-distributed-tracing's `InstrumentationSystem`) are
/// bootstrapped once per process too. Several instruments may be added at once, so that a test's recording
/// instrument can sit beside an app's metrics; each sees every timer and picks the ones it wants by
/// ``TimerLabel``. Timers on other schedulers (a `VirtualClock`) report ticks and handler durations too, measured on
/// that scheduler's clock.
///
/// Cost: with no instrument added, a delivered tick and a driver wake read one relaxed atomic counter and do
/// nothing else (no allocation, no lock, no clock read). With instruments added, each tick takes a snapshot of the
/// instrument list under a lock, reads the clock twice and calls each instrument twice; a driver wake also times each
/// due action and counts the clock's pending actions.
///
/// Thread-safety: every method may be called from any thread, including from an instrument.
public enum TimerInstruments {
    /// A token for ``remove(_:)``.
    public struct Registration: Hashable, Sendable {
        let id: UInt64
    }

    struct Entry: Sendable {
        let id: UInt64
        let instrument: any TimerInstrument
        let stallThreshold: Duration
    }

    private struct State: ~Copyable {
        var entries: [Entry] = []
        var nextID: UInt64 = 1
    }

    /// The number of instruments added: the one word the tick path reads.
    private static let count = Atomic<Int>(0)
    private static let state = TempoMutex(State())

    /// Adds `instrument`; it sees every event from the moment this returns until ``remove(_:)``.
    ///
    /// - Parameter instrument: The instrument.
    /// - Returns: A token for ``remove(_:)``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` when the instrument's
    ///   ``TimerInstrument/stallThreshold`` is not positive or is above 292 years (`Int64.max` ns); nothing is
    ///   added then.
    @discardableResult
    public static func add(_ instrument: any TimerInstrument) throws(TempoError) -> Registration {
        let threshold = instrument.stallThreshold
        guard threshold > .zero, threshold <= TempoError.maximumDuration else {
            throw TempoError(
                .invalidInterval, value: threshold.exactDescription,
                message:
                    "stall threshold must be above 0 and at most \(TempoError.maximumDuration.exactDescription), got \(threshold.exactDescription)"
            )
        }
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries.append(Entry(id: id, instrument: instrument, stallThreshold: threshold))
            count.store(state.entries.count, ordering: .relaxed)
            return Registration(id: id)
        }
    }

    /// Removes the instrument `registration` names. An event already being reported to it may still reach it.
    ///
    /// - Parameter registration: What ``add(_:)`` returned.
    /// - Returns: Whether it was still added (`false` the second time).
    @discardableResult
    public static func remove(_ registration: Registration) -> Bool {
        let removed = state.withLock { state -> Entry? in
            guard let index = state.entries.firstIndex(where: { $0.id == registration.id }) else { return nil }
            let entry = state.entries.remove(at: index)
            count.store(state.entries.count, ordering: .relaxed)
            return entry
        }
        // The instrument is released outside the lock: its deinit may call back in.
        return removed != nil
    }

    /// Whether any instrument is added: one relaxed atomic load. The tick path pays it twice when none is: once per
    /// driver wakeup (`ClockDriver`) and once per delivered tick (`TempoTimer`).
    @inline(__always)
    static var isActive: Bool { count.load(ordering: .relaxed) != 0 }

    /// The instruments added now (empty when none), taken once per event so that one lock round trip serves it.
    static func snapshot() -> Active {
        Active(entries: state.withLock { $0.entries })
    }

    /// A snapshot of the instruments, and what Tempo's engine reports to them.
    ///
    /// Index loops throughout: iterating the array generically boxes each element in unoptimized builds, which
    /// would allocate on every tick (CI's allocation gate runs a debug build).
    struct Active {
        let entries: [Entry]

        /// The smallest stall threshold, or `nil` when there is no instrument.
        var stallThreshold: Duration? {
            var smallest: Duration?
            var index = 0
            while index < entries.count {
                let threshold = entries[index].stallThreshold
                if smallest.map({ threshold < $0 }) ?? true { smallest = threshold }
                index += 1
            }
            return smallest
        }

        func tickDelivered(_ event: TickEvent) {
            forEach { $0.tickDelivered(event) }
        }

        func handlerFinished(_ event: HandlerEvent) {
            forEach { $0.handlerFinished(event) }
        }

        /// Reports `event` to the instruments whose threshold it reaches.
        func stalled(_ event: StallEvent) {
            forEach(lasting: event.duration) { $0.stalled(event) }
        }

        func pendingTimers(_ event: PendingEvent) {
            forEach { $0.pendingTimers(event) }
        }

        /// Calls `report` with each instrument, or with those whose stall threshold `duration` reaches.
        @inline(__always)
        private func forEach(lasting duration: Duration? = nil, _ report: (any TimerInstrument) -> Void) {
            var index = 0
            while index < entries.count {
                if duration.map({ $0 >= entries[index].stallThreshold }) ?? true { report(entries[index].instrument) }
                index += 1
            }
        }
    }
}
