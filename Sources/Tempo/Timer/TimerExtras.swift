/// The rarely used state of one ``TempoTimer``, kept out of the timer's object until something needs it.
///
/// A started timer with one handler, the default first tick, zero leeway and no state handler never allocates it,
/// so that each armed timer costs as few bytes as possible. Once allocated it stays (a later tick never allocates
/// it again). Not thread-safe: it is only reached through the timer's state machine (its mailbox holds the
/// reference), under the timer's lock. That lock is also why its properties skip the runtime's exclusivity check
/// (`@exclusivity(unchecked)`): no two accesses can overlap, and the check cost a call per access on each delivery
/// of a timer that has extras (a profile of a mass expiry found it in every mailbox removal).
final class TimerExtras {
    typealias StateHandler = @Sendable (TimerState) -> Void

    /// When the first tick is due (anything but ``FirstTick/afterInterval`` lives here).
    @exclusivity(unchecked) var firstTick = FirstTick.afterInterval
    /// How late a tick may run (nonzero values live here).
    @exclusivity(unchecked) var leeway = Duration.zero
    /// The closure called with each new state.
    @exclusivity(unchecked) var stateHandler: StateHandler?
    /// For a timer bound to a target: whether the target is still alive. Called outside the timer's lock (see
    /// `TimerStateMachine.Step.checkTarget`): its weak load can end the target's life, and the target's deinit may
    /// call the timer.
    @exclusivity(unchecked) var targetIsAlive: (@Sendable () -> Bool)?
    /// Scheduled ticks that were still queued when a start began a new run (see
    /// `TimerStateMachine.start(now:)`).
    @exclusivity(unchecked) var previousRunTicks = 0
    /// The time left to the next tick of a paused timer.
    @exclusivity(unchecked) var pausedRemaining = Duration.zero
    /// The mailbox's deliveries after its first, oldest at ``overflowStart``; the storage is kept once grown.
    @exclusivity(unchecked) var overflow: [TimerMailbox.Delivery] = []
    @exclusivity(unchecked) var overflowStart = 0
    /// The timer's name for instruments and log lines.
    @exclusivity(unchecked) var label: TimerLabel?
}
