import Dispatch
import Tempo

/// A scheduler that is a view of a ``VirtualClockEngine``: time, cancelling and queues are the engine's; a view
/// changes only what an action is scheduled with (a creation site, or a wrapper around the action). The engine
/// itself is the plain view.
///
/// Thread-safety: as the engine's; conforming types add only immutable or atomic state.
protocol EngineView: DeliveringScheduler {
    /// The engine the view forwards to.
    var engine: VirtualClockEngine { get }
    /// The creation site recorded with each scheduled action; `nil` by default.
    var site: VirtualClock.CreationSite? { get }
    /// What the engine runs in place of `action` when its deadline is reached; `action` itself by default.
    func wrap(_ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

extension EngineView {
    var site: VirtualClock.CreationSite? { nil }

    func wrap(_ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        action
    }

    func now(_ clock: TimerClock) -> TimerInstant {
        engine.now(clock)
    }

    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        engine.schedule(at: deadline, leeway: leeway, clock: clock, site: site, wrap(action))
    }

    func cancel(_ action: ScheduledAction) {
        engine.cancel(action)
    }

    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        engine.execute(on: queue, work)
    }
}
