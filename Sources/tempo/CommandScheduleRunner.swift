import Subprocess
import Synchronization
import SystemPackage
import Tempo
import TempoLocks
import TempoPlans
import TempoTools

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command on a ``TempoTimer``'s ticks, one run at a time, with an ``OverlapGate`` deciding what
/// happens to ticks that arrive while a run is going.
final class CommandScheduleRunner: Sendable {
    struct Summary {
        var runs = 0
        var failures = 0
        var overlapped = 0
        var missed = 0
        /// The signal that stopped the schedule (SIGINT, SIGTERM, SIGHUP or SIGQUIT), if one did.
        var signal: Int32?
        var interrupted: Bool { signal != nil }
        var policy = LateTickPolicy.coalesce
        var elapsed = Duration.zero

        var text: String {
            var parts = ["tempo every: \(runs) run\(runs == 1 ? "" : "s") in \(formatDuration(elapsed))"]
            parts.append("\(failures) failed")
            let policyName = LatePolicyOption.allCases.first { $0.policy == policy }?.rawValue ?? "coalesce"
            if overlapped > 0 {
                let verb = policy == .skip ? "skipped" : "coalesced"
                parts.append(
                    "\(overlapped) tick\(overlapped == 1 ? "" : "s") \(verb) while a run was going (--late \(policyName))"
                )
            }
            if missed > 0 { parts.append("\(missed) tick\(missed == 1 ? "" : "s") missed by the timer") }
            return parts.joined(separator: ", ") + (interrupted ? " (interrupted)" : "")
        }
    }

    private struct State {
        var gate: OverlapGate
        var summary = Summary()
        var childPID: pid_t?
        var scheduleEnded = false
        var continuation: CheckedContinuation<Summary, Never>?
        var timer: TempoTimer?
        var planTimer: PlanTimer?
    }

    private let invocation: [String]
    private let state: TempoMutex<State>

    init(invocation: [String], policy: LateTickPolicy) {
        self.invocation = invocation
        var initial = State(gate: OverlapGate(policy: policy))
        initial.summary.policy = policy
        state = TempoMutex(initial)
    }

    /// Runs the schedule until `count` ticks have passed (or forever) and the last run ended, or until
    /// ``interrupt(signal:)``.
    func run(every interval: Duration, count: Int?) async throws -> Summary {
        let policy = state.withLock { $0.gate.policy }
        let timer = try TempoTimer(
            .every(interval, repeats: count.map { .times($0) } ?? .forever, first: .after(.zero), latePolicy: policy)
        ) { [self] tick in
            tickArrived(missed: tick.missed)
        }
        timer.onStateChange { [self] newState in
            if newState == .finished { scheduleEnded() }
        }
        return await serve(timer: timer, planTimer: nil)
    }

    /// Runs the schedule at the dates of `plan` (on the wall clock) until `count` dates have fired (or forever)
    /// and the last run ended, or until ``interrupt()``.
    func run(plan: Plan, count: Int?) async throws -> Summary {
        let policy = state.withLock { $0.gate.policy }
        let timer = try PlanTimer(
            plan, latePolicy: policy,
            handler: .fire { [self] fire in
                tickArrived(missed: fire.missed)
                if let count, fire.index >= count { scheduleEnded() }
            })
        return await serve(timer: nil, planTimer: timer)
    }

    /// Stores the schedule's timer (for ``interrupt(signal:)``), starts it, and waits until the schedule ended and
    /// the last run finished.
    private func serve(timer: TempoTimer?, planTimer: PlanTimer?) async -> Summary {
        let start = SystemScheduler.shared.now(.monotonic)
        var summary = await withCheckedContinuation { continuation in
            let stopped = state.withLock {
                $0.continuation = continuation
                $0.timer = timer
                $0.planTimer = planTimer
                return $0.summary.interrupted
            }
            // A signal that arrived before the timer was stored found nothing to cancel: end at once.
            if stopped {
                scheduleEnded()
            } else {
                timer?.start()
                planTimer?.start()
            }
        }
        planTimer?.cancel()
        summary.elapsed = SystemScheduler.shared.now(.monotonic) - start
        return summary
    }

    /// Stops the schedule on `signal` (one of ``EveryCommand/stopSignals``): no new run starts; the run that is going gets the
    /// same signal, sent to its process group (it runs in a group of its own), and is waited for. A second
    /// signal kills that group (SIGKILL).
    func interrupt(signal: Int32) {
        let (timer, planTimer, pid, again) = state.withLock { state -> (TempoTimer?, PlanTimer?, pid_t?, Bool) in
            defer { state.summary.signal = state.summary.signal ?? signal }
            return (state.timer, state.planTimer, state.childPID, state.summary.interrupted)
        }
        timer?.cancel()
        planTimer?.cancel()
        if let pid { kill(-pid, again ? SIGKILL : signal) }
        scheduleEnded()
    }

    private func tickArrived(missed: Int) {
        let start = state.withLock { state -> Bool in
            state.summary.missed += missed
            guard !state.scheduleEnded else { return false }
            return state.gate.tickArrived()
        }
        if start { launch() }
    }

    private func scheduleEnded() {
        let finish = state.withLock { state -> (CheckedContinuation<Summary, Never>, Summary)? in
            state.scheduleEnded = true
            if state.summary.interrupted { state.gate.dropPending() }
            return takeContinuationIfDone(&state)
        }
        if let (continuation, summary) = finish { continuation.resume(returning: summary) }
    }

    private func takeContinuationIfDone(_ state: inout State) -> (CheckedContinuation<Summary, Never>, Summary)? {
        guard state.scheduleEnded, state.gate.isIdle, let continuation = state.continuation else { return nil }
        state.continuation = nil
        state.timer = nil
        state.planTimer = nil
        state.summary.overlapped = state.gate.overlapped
        return (continuation, state.summary)
    }

    private func launch() {
        Task { [self] in
            let succeeded = await runOnce()
            let next = state.withLock {
                state -> (again: Bool, finish: (CheckedContinuation<Summary, Never>, Summary)?) in
                state.childPID = nil
                state.summary.runs += 1
                if !succeeded { state.summary.failures += 1 }
                if state.summary.interrupted { state.gate.dropPending() }
                let again = state.gate.runFinished()
                return (again, again ? nil : takeContinuationIfDone(&state))
            }
            if next.again { launch() }
            if let (continuation, summary) = next.finish { continuation.resume(returning: summary) }
        }
    }

    /// Each run starts a process group of its own, so that a forwarded signal reaches everything it started.
    private static var ownProcessGroup: PlatformOptions {
        var options = PlatformOptions()
        options.processGroupID = 0
        return options
    }

    /// Runs the command once with inherited standard output and error; reports a failure on standard error.
    private func runOnce() async -> Bool {
        let run = state.withLock { $0.summary.runs } + 1
        flushOutput()
        do {
            let result = try await Subprocess.run(
                .path(FilePath(invocation[0])),
                arguments: Arguments(Array(invocation.dropFirst())),
                platformOptions: Self.ownProcessGroup,
                input: .none,
                output: .currentStandardOutput,
                error: .currentStandardError
            ) { [self] execution in
                let pid = execution.processIdentifier.value
                // A signal that arrived while the run was starting had no group to go to: forward it now.
                let pending = state.withLock { state in
                    state.childPID = pid
                    return state.summary.signal
                }
                if let pending { kill(-pid, pending) }
            }
            switch result.terminationStatus {
            case .exited(0):
                return true
            case .exited(let code):
                printError("tempo every: run \(run) exited with status \(code)")
            case .signaled(let signal) where state.withLock({ $0.summary.interrupted }) && signal != SIGKILL:
                printError("tempo every: run \(run) was interrupted")
                return true
            case .signaled(let signal):
                printError("tempo every: run \(run) was killed by signal \(signal)")
            }
        } catch {
            printError("tempo every: run \(run) could not start: \(error)")
        }
        return false
    }
}
