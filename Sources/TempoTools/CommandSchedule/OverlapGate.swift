package import Tempo

/// Decides when to start a long-running job driven by a timer, when a tick can arrive while the previous
/// run is still going.
///
/// A timer's ``LateTickPolicy`` covers ticks that the timer itself could not deliver in time. `OverlapGate`
/// applies the same policy one level up, to ticks that arrive on time while the job they trigger (a
/// child process, a request) is still running from an earlier tick:
/// - ``LateTickPolicy/coalesce``: the overlapping ticks fold into one run that starts as soon as the
///   current run ends;
/// - ``LateTickPolicy/burst``: every overlapping tick gets its own run, back to back, after the current one;
/// - ``LateTickPolicy/skip``: overlapping ticks are dropped; the next run starts on the next tick that
///   arrives while nothing runs.
///
/// Why not `JobOptions.Overlap` (issue #43: two overlap vocabularies): `tempo every` lives in the core's world
/// (a `TempoTimer`'s late-tick policy, `--late coalesce|burst|skip`), builds without the `Jobs` trait, and has no
/// concurrent runs; the jobs' `.skip` / `.queue` / `.concurrent(limit:)` answer a scheduler's question. The gate
/// maps the timer's three policies onto runs, so a user of the command learns one word per behaviour.
///
/// `OverlapGate` is a value type with no clock of its own: feed it ``tickArrived()`` and ``runFinished()``
/// and start a run whenever one of them returns `true`. It is not synchronized; keep it in a `Mutex`
/// when ticks and run completions come from different threads.
package struct OverlapGate: Sendable, Hashable {
    /// The policy for ticks that arrive while a run is going.
    package let policy: LateTickPolicy
    /// Whether a run is going.
    package private(set) var isRunning = false
    /// Runs owed by overlapping ticks that have not started yet (at most 1 under coalesce, 0 under skip).
    package private(set) var pending = 0
    /// The number of runs started.
    package private(set) var started = 0
    /// Ticks folded into another run (coalesce) or dropped (skip) because a run was going.
    package private(set) var overlapped = 0

    /// Creates an idle gate.
    ///
    /// - Parameter policy: What to do with ticks that arrive while a run is going.
    package init(policy: LateTickPolicy) {
        self.policy = policy
    }

    /// Whether nothing runs and no run is owed.
    package var isIdle: Bool { !isRunning && pending == 0 }

    /// Records a tick.
    ///
    /// - Returns: `true` when the caller must start a run now (the gate then counts it as running).
    package mutating func tickArrived() -> Bool {
        guard isRunning else {
            isRunning = true
            started += 1
            return true
        }
        switch policy.kind {
        case .burst:
            pending += 1
        case .coalesce:
            if pending == 0 {
                pending = 1
            } else {
                overlapped += 1
            }
        case .skip:
            overlapped += 1
        }
        return false
    }

    /// Records that the current run ended.
    ///
    /// - Returns: `true` when the caller must start the next, owed run now.
    /// - Precondition: A run is going.
    package mutating func runFinished() -> Bool {
        precondition(isRunning, "runFinished() without a run going")
        guard pending > 0 else {
            isRunning = false
            return false
        }
        pending -= 1
        started += 1
        return true
    }

    /// Drops owed runs, for example when the schedule is stopped; a run that is going keeps going.
    ///
    /// - Returns: The number of owed runs dropped.
    @discardableResult
    package mutating func dropPending() -> Int {
        defer { pending = 0 }
        return pending
    }
}
