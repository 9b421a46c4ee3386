// A small server-like process for the end-to-end SIGTERM test of TempoJobs: one job, "slow", due every 100 ms,
// whose run takes `RUN_SECONDS` (default 2) and ignores nothing: it sleeps, then finishes. The scheduler runs in a
// ServiceGroup that shuts down gracefully on SIGTERM, so a run going when the signal comes finishes (within the
// grace period of 30 s), no new run starts, and the process exits 0 after printing "exited".
//
// Each line is flushed at once: "run N started", "run N finished", "stats started=… skipped=…", "exited".
//
// With `IGNORE_CANCELLATION=1` the run ignores cancellation (it waits on a Dispatch timer), and `GRACE_SECONDS` and
// `ABANDON_SECONDS` (default 30 and 5) set the scheduler's grace period and abandon delay: a run longer than both
// is abandoned, the scheduler's error log (on standard error) names the job, and the process still exits 0.
//
// `tempo-jobs-demo bench` measures the numbers of issue #32 instead (see Bench.swift), and
// `tempo-jobs-demo store-bench` those of issue #41: the job stores under many cursor writes (see StoreBench.swift).
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TempoJobs

@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if CommandLine.arguments.dropFirst().first == "bench" {
    try await Bench.run()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "store-bench" {
    try await StoreBench.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let environment = ProcessInfo.processInfo.environment
let runSeconds = environment["RUN_SECONDS"].flatMap(Double.init) ?? 2
let graceSeconds = environment["GRACE_SECONDS"].flatMap(Double.init) ?? 30
let abandonSeconds = environment["ABANDON_SECONDS"].flatMap(Double.init) ?? 5
let ignoreCancellation = environment["IGNORE_CANCELLATION"] == "1"
var logger = Logger(label: "tempo-jobs-demo")
logger.logLevel = .error
let scheduler = JobScheduler(
    configuration: .init(gracePeriod: .seconds(graceSeconds), abandonAfter: .seconds(abandonSeconds)), logger: logger)
let counter = Counter()
try scheduler.register("slow", .every(.milliseconds(100))) { context in
    let run = counter.next()
    say("run \(run) started")
    if ignoreCancellation {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + runSeconds) { continuation.resume() }
        }
    } else {
        // Finishes by itself well within the grace period (a cancelled sleep would end it early).
        try? await Task.sleep(for: .seconds(runSeconds))
    }
    say("run \(run) finished")
}
let group = ServiceGroup(services: [scheduler], gracefulShutdownSignals: [.sigterm], logger: logger)
try await group.run()
let stats = scheduler.stats(for: "slow") ?? JobStats()
say("stats started=\(stats.started) succeeded=\(stats.succeeded) skipped=\(stats.skipped) running=\(stats.running)")
say("exited")

/// Numbers the runs.
final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
