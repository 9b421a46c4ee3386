import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A way of ending an object's life (cancel, owner dies, one-shot finishes, ...) and the weak references
/// that must all be `nil` afterwards.
///
/// A scenario builds its objects inside its own scope, drives them to the end of their life, and returns
/// weak references to everything it made: the object, its handlers' captured objects, targets, observers.
/// Adding a type means adding scenarios to ``LeakScenario/all``.
struct LeakScenario: CustomTestStringConvertible, Sendable {
    let name: String
    /// Whether the scenario runs on the real scheduler (then the check waits for deliveries to drain).
    let realTime: Bool
    /// Runs the scenario on the given virtual clock (ignored by real-time scenarios), which the test keeps
    /// alive through the check so that nothing is released merely because its scheduler died.
    let run: @Sendable (VirtualClock, LeakTracker) throws -> Void

    var testDescription: String { name }

    /// Waits (real-time scenarios only) until every reference is `nil` or `limit` passes; returns the live ones.
    /// Waits with `Task.sleep`, so that the cooperative pool stays free for the tasks of async scenarios.
    func survivors(of references: [WeakReference], limit: Duration = .seconds(10)) async -> [String] {
        if realTime {
            let deadline = ContinuousClock.now + limit
            while references.contains(where: \.isAlive), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        return references.filter(\.isAlive).map(\.name)
    }

    static var all: [LeakScenario] { timerScenarios + toolkitScenarios + asyncScenarios }
}

/// Records what a test made, to hand back as weak references.
final class LeakTracker: Sendable {
    private let tracked = TempoMutex<[WeakReference]>([])

    var references: [WeakReference] { tracked.withLock { $0 } }

    /// Tracks `object` under `name` and returns it.
    @discardableResult
    func track<Object: AnyObject>(_ name: String, _ object: Object) -> Object {
        tracked.withLock { $0.append(WeakReference(name, object)) }
        return object
    }

    /// A fresh captured object, tracked.
    func canary(_ name: String) -> Canary { track(name, Canary()) }

    private let cleanups = TempoMutex<[@Sendable () -> Void]>([])

    /// Work to run after the check, for example cancelling a timer the scenario deliberately left running (the
    /// check keeps the `VirtualClock`, and with it its running timers, alive).
    func atEnd(_ cleanup: @escaping @Sendable () -> Void) {
        cleanups.withLock { $0.append(cleanup) }
    }

    func cleanUp() {
        for cleanup in cleanups.withLock({ $0 }) { cleanup() }
    }
}
