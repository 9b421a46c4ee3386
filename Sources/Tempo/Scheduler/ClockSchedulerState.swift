/// The pending actions of a ``ClockScheduler`` and the one task that sleeps on its clock; kept in its lock.
///
/// At any moment either no task is armed (nothing pending, or the clock's sleep failed), or one wake task sleeps
/// until ``armedUntil``, or the scheduler is running due actions (``running``): then schedules only insert, and the
/// runner arms the next wake when it has run everything due. A wake task acts only if its generation is still
/// ``generation``, so a replaced task that wakes anyway does nothing.
struct ClockSchedulerState<C: Clock>: Sendable where C.Duration == Duration {
    var queue = DeadlineQueue()
    var nextID: UInt64 = 1
    /// The generation of the current wake task; each new task gets the next one.
    var generation: UInt64 = 0
    /// The current wake task and the deadline (on the scheduler's time line) it sleeps until.
    var armed: (task: Task<Void, Never>, until: TimerInstant)?
    /// Whether a wake task is running due actions.
    var running = false

    /// Adds an action to the queue.
    mutating func insert(
        deadline: TimerInstant,
        leeway: Duration,
        action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        let id = nextID
        nextID += 1
        let slot = queue.insert(id: id, deadline: deadline, leeway: leeway, action: action)
        return ScheduledAction(id: id, slot: slot)
    }

    /// Starts a wake task for the earliest deadline unless one already sleeps until it (or earlier) or actions
    /// are running; returns the task it replaces, to be cancelled outside the lock.
    mutating func rearmIfNeeded(_ scheduler: ClockScheduler<C>) -> Task<Void, Never>? {
        guard !running, let first = queue.earliestDeadline() else { return nil }
        if let armed, armed.until <= first.deadline { return nil }
        let tolerance = max(.zero, (queue.wakeInstant() ?? first.deadline) - first.deadline)
        generation += 1
        let generation = generation
        let deadline = first.deadline
        let task = Task.detached {
            await scheduler.wake(generation: generation, until: deadline, tolerance: tolerance)
        }
        let replaced = armed?.task
        armed = (task, deadline)
        return replaced
    }

    /// Forgets the wake task once nothing is pending, and returns it to be cancelled outside the lock.
    mutating func disarmIfIdle() -> Task<Void, Never>? {
        guard queue.isEmpty, let armed else { return nil }
        self.armed = nil
        generation += 1
        return armed.task
    }

    /// The wake task of `generation` woke: it runs due actions if it is still the current one.
    mutating func beginRunning(generation: UInt64) -> Bool {
        guard generation == self.generation, armed != nil else { return false }
        armed = nil
        running = true
        return true
    }

    /// The wake task of `generation` stopped without waking (cancelled or the clock threw).
    mutating func forget(generation: UInt64) {
        guard generation == self.generation else { return }
        armed = nil
    }
}
