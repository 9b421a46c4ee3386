import Synchronization
import TempoLocks

/// Watches one object's handler runs under stress and records every broken promise.
///
/// - **No overlap**: every handler (tick handlers, observers, state handlers) calls ``enter()`` and
///   ``leave()``; two callers inside at once is an overlap.
/// - **No run after cancel**: operations that can make a cancelled object run again (start, reset) are
///   bracketed by ``reviveBegan()`` / ``reviveEnded()``, and cancels by ``cancelBegan()`` /
///   ``cancelReturned(_:)``, using one global sequence of stamps. A run that begins after some cancel
///   returned, when no revive is in progress and none ended after that cancel began, is *late*. The
///   documentation allows one: a run claimed before the cancel may begin just after it returns (cancel
///   never waits for user code). A second late run with no revive in between is a violation.
final class HandlerProbe: Sendable {
    private static let clock = Atomic<Int>(1)

    /// The next stamp of the global sequence.
    static func stamp() -> Int { clock.add(1, ordering: .sequentiallyConsistent).newValue }

    let name: String
    private let inside = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)
    private let reviving = Atomic<Int>(0)
    private let lastReviveEnd = Atomic<Int>(0)
    private let lastCancelBegin = Atomic<Int>(0)
    private let lastLateReviveEnd = Atomic<Int>(-1)
    private let lateCount = Atomic<Int>(0)
    private let afterCancelCount = Atomic<Int>(0)
    private let runCount = Atomic<Int>(0)
    private let problems = TempoMutex<[String]>([])

    private let checksOverlap: Bool

    /// - Parameters:
    ///   - name: For reports.
    ///   - checksOverlap: `false` for a probe shared by objects whose runs may legitimately overlap (for example
    ///     the old and new timer of a registry key being replaced); it then checks only the after-cancel rule.
    init(name: String, checksOverlap: Bool = true) {
        self.name = name
        self.checksOverlap = checksOverlap
    }

    var overlaps: Int { overlapCount.load(ordering: .sequentiallyConsistent) }
    /// Runs that began after a cancel returned, allowed once per cancel.
    var lateRuns: Int { lateCount.load(ordering: .sequentiallyConsistent) }
    /// Runs that began after a cancel returned when one late run had already begun: violations.
    var runsAfterCancel: Int { afterCancelCount.load(ordering: .sequentiallyConsistent) }
    var runs: Int { runCount.load(ordering: .sequentiallyConsistent) }
    var violations: [String] { problems.withLock { $0 } }

    /// Records a broken invariant (at most 20 are kept).
    func fail(_ message: String) {
        problems.withLock { if $0.count < 20 { $0.append("\(name): \(message)") } }
    }

    // MARK: Operations

    func reviveBegan() { reviving.add(1, ordering: .sequentiallyConsistent) }

    func reviveEnded() {
        lastReviveEnd.max(Self.stamp(), ordering: .sequentiallyConsistent)
        reviving.subtract(1, ordering: .sequentiallyConsistent)
    }

    func cancelBegan() -> Int { Self.stamp() }

    func cancelReturned(_ began: Int) { lastCancelBegin.max(began, ordering: .sequentiallyConsistent) }

    // MARK: Handler runs

    /// Called first thing by a handler; `startsRun` for the first handler of a tick (the one that begins a run).
    func enter(startsRun: Bool = false) {
        if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1, checksOverlap {
            overlapCount.add(1, ordering: .sequentiallyConsistent)
            fail("handler runs overlap")
        }
        guard startsRun else { return }
        runCount.add(1, ordering: .relaxed)
        let cancelBegin = lastCancelBegin.load(ordering: .sequentiallyConsistent)
        let revivals = reviving.load(ordering: .sequentiallyConsistent)
        let reviveEnd = lastReviveEnd.load(ordering: .sequentiallyConsistent)
        guard revivals == 0, reviveEnd < cancelBegin else { return }
        lateCount.add(1, ordering: .sequentiallyConsistent)
        // Runs are serial, so only this run touches `lastLateReviveEnd` now.
        if lastLateReviveEnd.exchange(reviveEnd, ordering: .sequentiallyConsistent) == reviveEnd {
            afterCancelCount.add(1, ordering: .sequentiallyConsistent)
            fail("a handler run began after cancel() returned (cancel stamp \(cancelBegin))")
        }
    }

    /// Called last thing by a handler.
    func leave() {
        inside.subtract(1, ordering: .sequentiallyConsistent)
    }
}
