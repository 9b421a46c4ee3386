import Dispatch
import Synchronization
import Tempo
import TempoLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A shared object under stress: what threads may do to it and what must hold afterwards.
///
/// Adding a type to the stress suite means writing one conforming class: a list of operations (each takes
/// the thread's generator for its arguments), a ``finish()`` that cancels everything, the probes that saw
/// the handler runs, and weak references to everything that must be gone at the end.
protocol StressSubject: AnyObject, Sendable {
    /// A short name for reports.
    var name: String { get }
    /// The operations, by name; threads pick one at random each step.
    var operations: [(name: String, run: @Sendable (inout SeededGenerator) -> Void)] { get }
    /// After the storm: checks that the shared instance still works (for a timer: started, it ticks again),
    /// so that no call order can wedge it. Returns the problems found.
    func checkStillWorks() -> [String]
    /// Cancels everything and drops every strong reference the subject holds.
    func finish()
    /// The probes that watched handler runs (for overlap, after-cancel and custom checks).
    var probes: [HandlerProbe] { get }
    /// Broken invariants found by operations (besides the probes').
    var violations: [String] { get }
    /// Objects that must be deallocated once finished and the scheduler has drained: name and weak reference.
    var tracked: [WeakReference] { get }
}

/// A named weak reference, to check that something was released.
final class WeakReference: Sendable {
    let name: String
    private let reference: TempoMutex<Weak>

    // @unchecked: safe because the wrapper is only read and written under the Mutex, and reading a weak reference
    // is thread-safe.
    private struct Weak: @unchecked Sendable {
        weak var object: AnyObject?
    }

    init(_ name: String, _ object: AnyObject) {
        self.name = name
        reference = TempoMutex(Weak(object: object))
    }

    var isAlive: Bool { object != nil }

    /// The object, if it is still alive.
    var object: AnyObject? { reference.withLock { $0.object } }
}

/// An object captured by a handler, so that the test can see whether the handler was released.
final class Canary: Sendable {}

/// What a stress run did.
struct StressReport: CustomStringConvertible {
    var operations = 0
    var runs = 0
    var lateRuns = 0
    var elapsed = Duration.zero
    var violations: [String] = []
    var stillAlive: [String] = []

    var description: String {
        "\(operations) operations, \(runs) handler runs (\(lateRuns) began just after a cancel returned, "
            + "claimed before it), \(violations.count) violations, \(stillAlive.count) objects still alive, "
            + "in \(elapsed)"
    }
}

enum StressHarness {
    /// Runs `threads` real threads, each performing up to `operationsPerThread` random operations on random
    /// subjects until `timeLimit` passes; then finishes every subject, waits up to `drainLimit` for everything
    /// to be released, and collects the probes' and subjects' findings.
    static func run(
        _ subjects: [any StressSubject],
        threads: Int = 8,
        operationsPerThread: Int,
        timeLimit: Duration,
        drainLimit: Duration = .seconds(20),
        seed: UInt64
    ) -> StressReport {
        let performed = Atomic<Int>(0)
        let started = ContinuousClock.now
        let deadline = started + timeLimit
        RealThreads.run(count: threads) { thread in
            var random = SeededGenerator(seed: seed &+ UInt64(thread) &* 0x9E37_79B9_7F4A_7C15)
            var count = 0
            while count < operationsPerThread {
                if count % 64 == 0, ContinuousClock.now >= deadline { break }
                let subject = subjects[Int.random(in: 0..<subjects.count, using: &random)]
                let operations = subject.operations
                operations[Int.random(in: 0..<operations.count, using: &random)].run(&random)
                count += 1
            }
            performed.add(count, ordering: .relaxed)
        }
        var report = StressReport()
        report.operations = performed.load(ordering: .relaxed)
        for subject in subjects { report.violations += subject.checkStillWorks() }
        for subject in subjects { subject.finish() }
        let drainDeadline = ContinuousClock.now + drainLimit
        let tracked = subjects.flatMap(\.tracked)
        while tracked.contains(where: \.isAlive), ContinuousClock.now < drainDeadline {
            usleep(1_000)
        }
        // Give late deliveries a moment to show up in the probes before reading them.
        usleep(20_000)
        report.elapsed = ContinuousClock.now - started
        report.stillAlive = tracked.filter(\.isAlive).map(\.name)
        for subject in subjects {
            report.violations += subject.violations
            for probe in subject.probes {
                report.violations += probe.violations
                report.runs += probe.runs
                report.lateRuns += probe.lateRuns
            }
        }
        return report
    }
}
