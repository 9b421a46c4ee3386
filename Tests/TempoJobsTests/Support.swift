import Foundation
import Logging
import Synchronization
import Tempo
import TempoJobs
import TempoTesting
import Testing

extension VirtualClock {
    /// The clock's wall time as a `Date`, the scheduler's `wallClock` in tests.
    var wallDate: @Sendable () -> Date {
        { Date(timeIntervalSince1970: self.now(.wall).timeIntervalSince1970) }
    }

    /// Seconds of virtual time since the clock's start, for traces.
    var seconds: Double {
        Double(now.offset.components.seconds) + Double(now.offset.components.attoseconds) / 1e18
    }
}

/// The wall date of the virtual clock's start (2026-01-01 00:00 UTC), plus `seconds`.
func wallDate(_ seconds: Double) -> Date {
    Date(timeIntervalSince1970: VirtualClock.defaultWallStart.timeIntervalSince1970 + seconds)
}

/// A list of lines appended from any task.
final class Trace: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// An error the bodies of tests throw.
struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// A log handler that keeps every message with its metadata.
struct RecordingLogHandler: LogHandler {
    let trace: Trace
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    // swift-log 1.16's requirement (the older one with `source:` is deprecated).
    func log(event: LogEvent) {
        var all = metadata
        for (key, value) in event.metadata ?? [:] { all[key] = value }
        let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        trace.append("\(event.level) \(event.message) \(fields)")
    }
}

/// A scheduler on `clock` whose log goes to `log`.
func makeScheduler(
    on clock: VirtualClock,
    log: Trace = Trace(),
    store: any JobStore = InMemoryJobStore(),
    gracePeriod: Duration = .seconds(30),
    abandonAfter: Duration = .seconds(5),
    seed: UInt64? = 1
) -> JobScheduler<VirtualClock> {
    let logger = Logger(label: "test") { _ in RecordingLogHandler(trace: log) }
    return JobScheduler(
        configuration: .init(gracePeriod: gracePeriod, abandonAfter: abandonAfter, randomSeed: seed), store: store,
        logger: logger,
        wallClock: clock.wallDate, clock: clock)
}

/// Runs `scheduler` for `duration` of virtual time, then shuts it down gracefully; returns the virtual time (in
/// seconds) at which `run()` returned. Call inside `clock.run { }`.
@discardableResult
func run(_ scheduler: JobScheduler<VirtualClock>, on clock: VirtualClock, for duration: Duration) async throws -> Double
{
    try await withThrowingTaskGroup(of: Double?.self) { group in
        group.addTask {
            try await scheduler.run()
            return clock.seconds
        }
        group.addTask {
            await settle(clock)
            try await clock.sleep(for: duration)
            scheduler.triggerGracefulShutdown()
            return nil
        }
        var ended = 0.0
        for try await value in group {
            if let value { ended = value }
        }
        return ended
    }
}

/// Keeps `clock` still while the tasks of its run take 1,000 turns on the run's serial executor, so that the
/// scheduler's start (its planners, and catch-up runs one after another) has settled before time moves,
/// however loaded the machine is: an auto-advancing run waits only 3 turns (and 0.5 ms) after the last clock
/// event, and starting a scheduler takes more turns than that without touching the clock.
func settle(_ clock: VirtualClock) async {
    await clock.holdingTime {
        for _ in 0..<1000 { await Task.yield() }
    }
}
