import Synchronization
import Tempo

/// Moves a ``VirtualClockEngine`` from deadline to deadline while the body of
/// ``VirtualClock/run(quietPeriod:maximumSteps:stallTimeout:_:)`` runs; see there for when it steps.
final class AutoAdvanceDriver: Sendable {
    /// Consecutive yields without a clock event that a quiet window needs, besides its real-time length.
    static let quietYields = 3

    private let engine: VirtualClockEngine
    private let quietPeriod: Duration
    private let maximumSteps: Int
    private let stallTimeout: Duration
    private let done = Atomic<Bool>(false)

    init(engine: VirtualClockEngine, quietPeriod: Duration, maximumSteps: Int, stallTimeout: Duration) {
        self.engine = engine
        self.quietPeriod = quietPeriod
        self.maximumSteps = maximumSteps
        self.stallTimeout = stallTimeout
    }

    /// The body returned or threw: stop stepping.
    func finish() {
        done.store(true, ordering: .releasing)
    }

    private var isDone: Bool { done.load(ordering: .acquiring) }

    /// Steps until ``finish()``; throws when the step limit is reached or the body stalls.
    func drive() async throws {
        var steps = 0
        var idleSince: ContinuousClock.Instant?
        while !isDone {
            try Task.checkCancellation()
            await waitUntilQuiet()
            guard !isDone else { return }
            guard engine.pendingCount > 0 else {
                // The body waits on something the clock cannot see: give it real time, up to the stall timeout.
                let start = idleSince ?? .now
                idleSince = start
                if start.duration(to: .now) >= stallTimeout {
                    throw VirtualClock.AutoAdvanceError.stalled(after: stallTimeout)
                }
                try await Task.sleep(for: .microseconds(200))
                continue
            }
            idleSince = nil
            guard steps < maximumSteps else { throw VirtualClock.AutoAdvanceError.tooManySteps(steps) }
            steps += 1
            _ = engine.advanceToNextDeadline()
        }
    }

    /// Returns once no clock event happened for ``quietYields`` yields and ``quietPeriod`` of real time with no
    /// hold open, or once the body is done.
    private func waitUntilQuiet() async {
        var seen = engine.activitySnapshot.activity
        var since = ContinuousClock.now
        var yields = 0
        while !isDone {
            await Task.yield()
            let snapshot = engine.activitySnapshot
            if snapshot.activity != seen || snapshot.holds > 0 || snapshot.woken > 0 {
                seen = snapshot.activity
                since = .now
                yields = 0
                continue
            }
            yields += 1
            if yields >= Self.quietYields && since.duration(to: .now) >= quietPeriod { return }
        }
    }
}
