import Clocks
import Synchronization
import Tempo
import TempoLocks
import TempoTesting

/// Collects ticks from a consumer task for assertions.
final class AsyncTickLog<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    private let ticks = TempoMutex<[AsyncTick<Instant>]>([])

    var all: [AsyncTick<Instant>] { ticks.withLock { $0 } }
    var indices: [Int] { all.map(\.index) }
    var count: Int { all.count }

    func record(_ tick: AsyncTick<Instant>) {
        ticks.withLock { $0.append(tick) }
    }
}

/// Yields (no sleeping) until `condition` holds, giving up after 10 s of real time and 10,000 yields (see
/// `YieldingPatience`: a starved wait does not count the time it could not run).
///
/// - Returns: Whether the condition held.
@discardableResult
func eventually(isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async -> Bool {
    var patience = YieldingPatience(timeout: .seconds(10))
    while !condition() {
        guard await patience.yield() else { return false }
    }
    return true
}

/// Runs one action at a time on `clock` (advancing to its deadline) while async code keeps scheduling
/// more, until `done` holds. Before each step it waits until something is pending, that is until the
/// code under test is asleep.
///
/// - Returns: The number of steps taken.
@discardableResult
func drive(_ clock: VirtualClock, until done: () -> Bool) async -> Int {
    var steps = 0
    while true {
        let ready = await eventually { done() || clock.pendingCount > 0 }
        guard ready, !done() else { return steps }
        clock.runUntilIdle(limit: 1)
        steps += 1
    }
}

/// A `Clock` class wrapping a `VirtualClock`, so a test can hold it weakly and see who retains it.
final class TrackedClock: Clock {
    let base: VirtualClock

    init(_ base: VirtualClock) { self.base = base }

    var now: TimerInstant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: TimerInstant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

/// An object a handler can capture, to check that it is released.
final class Probe: Sendable {}

/// A flag a task sets when it is done, for ``drive(_:until:)``.
final class Flag: Sendable {
    private let value = Atomic(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() { value.store(true, ordering: .releasing) }
}

extension TestClock<Duration> {
    /// Yields until some task is asleep on this clock (or 10 s of real time and 10,000 checks passed; see
    /// `YieldingPatience`).
    ///
    /// - Returns: Whether a task was asleep.
    @discardableResult
    func waitForSleeper() async -> Bool {
        var patience = YieldingPatience(timeout: .seconds(10))
        while await patience.yield() {
            do {
                try await checkSuspension()
            } catch {
                return true
            }
        }
        return false
    }
}
