import Synchronization

extension VirtualClockEngine {
    /// An auto-advancing run on `executor` starts on this clock.
    func beginRun(on executor: UnownedTaskExecutor) {
        runExecutors.withLock { $0.append(executor) }
    }

    /// The auto-advancing run on `executor` ended.
    func endRun(on executor: UnownedTaskExecutor) {
        runExecutors.withLock { executors in
            if let index = executors.firstIndex(of: executor) { executors.remove(at: index) }
        }
    }

    /// Records a read or a sleep of the clock (as a `Clock`) during a run by a task that the run cannot keep in step:
    /// a task whose executor preference is not the run's, that is neither the run's body nor one of its child tasks.
    /// `ClockScheduler(clock: virtualClock)` is one: it sleeps from a `Task.detached`, which the run does not see
    /// until it sleeps, so the run may advance past its deadline first. Nothing is recorded outside a run, nor for
    /// code that runs outside any task (a timer's handler on a queue).
    func noteClockUse() {
        let executors = runExecutors.withLock { $0 }
        guard !executors.isEmpty else { return }
        let foreign = withUnsafeCurrentTask { task -> Bool in
            guard let task else { return false }
            guard let executor = task.unownedTaskExecutor else { return true }
            return !executors.contains(executor)
        }
        if foreign { foreignTaskUses.add(1, ordering: .relaxed) }
    }

    /// How many reads and sleeps of the clock came from tasks outside a run while it was running.
    var foreignTaskUseCount: Int {
        foreignTaskUses.load(ordering: .relaxed)
    }
}
