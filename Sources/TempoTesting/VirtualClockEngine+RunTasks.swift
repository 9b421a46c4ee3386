import Synchronization

extension VirtualClockEngine {
    /// An auto-advancing run starts on this clock.
    func beginRun() {
        activeRuns.add(1, ordering: .relaxed)
    }

    /// An auto-advancing run ended.
    func endRun() {
        activeRuns.subtract(1, ordering: .relaxed)
    }

    /// Records a read or a sleep of the clock (as a `Clock`) by a task that the running auto-advancer cannot keep in
    /// step: a task without a task executor preference, that is neither the run's body nor one of its child tasks.
    /// `ClockScheduler(clock: virtualClock)` is one: it sleeps from a `Task.detached`, which the run does not see
    /// until it sleeps, so the run may advance past its deadline first. Nothing is recorded outside a run.
    func noteClockUse() {
        guard activeRuns.load(ordering: .relaxed) > 0 else { return }
        let foreign = withUnsafeCurrentTask { task in task.map { $0.unownedTaskExecutor == nil } ?? false }
        if foreign { foreignTaskUses.add(1, ordering: .relaxed) }
    }

    /// How many reads and sleeps of the clock came from tasks outside a run while it was running.
    var foreignTaskUseCount: Int {
        foreignTaskUses.load(ordering: .relaxed)
    }
}
