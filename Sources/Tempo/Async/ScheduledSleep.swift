import Synchronization
import TempoLocks

/// One sleep of a ``TempoClock``: a deadline on a scheduler that resumes a continuation exactly once,
/// when the deadline passes or when the task is cancelled, whichever comes first.
final class ScheduledSleep: Sendable {
    private enum State {
        case initial
        case waiting(CheckedContinuation<Void, any Error>, ScheduledAction?)
        case cancelled
        case finished
    }

    private let scheduler: any TimerScheduler
    private let state = TempoMutex<State>(.initial)

    init(scheduler: any TimerScheduler) {
        // Not `scheduler` itself: the pending deadline keeps this sleep alive (see `keptReference`).
        self.scheduler = scheduler.keptReference
    }

    /// Arms the deadline, or resumes at once if the task was cancelled before the continuation existed.
    func begin(
        _ continuation: CheckedContinuation<Void, any Error>,
        deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock
    ) {
        let armed = state.withLock { state in
            guard case .initial = state else { return false }
            state = .waiting(continuation, nil)
            return true
        }
        guard armed else {
            continuation.resume(throwing: CancellationError())
            return
        }
        // Scheduled outside the lock: a scheduler may run an overdue action from inside `schedule`.
        let action = scheduler.schedule(at: deadline, leeway: leeway, clock: clock) { [self] in fire() }
        let stale = state.withLock { state in
            guard case .waiting(let continuation, nil) = state else { return true }
            state = .waiting(continuation, action)
            return false
        }
        if stale {
            scheduler.cancel(action)
        }
    }

    /// The deadline passed.
    private func fire() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard case .waiting(let continuation, _) = state else { return nil }
            state = .finished
            return continuation
        }
        continuation?.resume()
    }

    /// The task was cancelled: disarm and release the deadline, then resume with `CancellationError`.
    func cancel() {
        let taken = state.withLock { state -> (CheckedContinuation<Void, any Error>?, ScheduledAction?) in
            switch state {
            case .initial:
                state = .cancelled
                return (nil, nil)
            case .waiting(let continuation, let action):
                state = .cancelled
                return (continuation, action)
            case .cancelled, .finished:
                return (nil, nil)
            }
        }
        let (continuation, action) = taken
        if let action {
            scheduler.cancel(action)
        }
        continuation?.resume(throwing: CancellationError())
    }
}
