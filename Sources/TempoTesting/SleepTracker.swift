import Synchronization
import Tempo

/// The scheduler one ``VirtualClock`` sleep arms its deadline on: the clock's engine, with the deadline's action
/// wrapped to count the sleeper as *woken* until its task runs again.
///
/// Auto-advancing (``VirtualClock/run(quietPeriod:maximumSteps:stallTimeout:_:)``) must not move time while a
/// task that the clock just resumed has not run yet: the executor may take a while to schedule it. The action
/// counts the sleep as woken before it resumes the task; the sleeping call uncounts it once it returns in that
/// task (or throws, if the deadline's action ran anyway).
final class SleepTracker: EngineView {
    let engine: VirtualClockEngine
    private let fired = Atomic<Bool>(false)

    init(engine: VirtualClockEngine) {
        self.engine = engine
    }

    /// Called in the sleeping task once the sleep returned or threw.
    func sleepEnded() {
        if fired.exchange(false, ordering: .acquiringAndReleasing) {
            engine.changeWoken(by: -1)
        }
    }

    /// Counts the sleep as woken, then resumes it.
    func wrap(_ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        { [self] in
            if !fired.exchange(true, ordering: .acquiringAndReleasing) {
                engine.changeWoken(by: 1)
            }
            action()
        }
    }
}
