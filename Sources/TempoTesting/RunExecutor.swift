import Dispatch

/// The executor of an auto-advancing run: a serial dispatch queue, so the run's tasks (its body, the tasks the body
/// starts in groups or with `async let`, and the driver that advances the clock) take turns on one thread of their
/// own.
///
/// That keeps a run independent of how busy Swift's shared executor is (a test process runs many tests at once, and
/// tests that block its few threads would otherwise slow every step), and it makes a yield of the driver meaningful:
/// every job of the run enqueued before it has run up to its next suspension when the yield returns.
final class RunExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "TempoTesting.VirtualClock.run")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
