import Dispatch
import Foundation
import Synchronization
import Tempo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue #44: a stall on the delivery pool counts every timer it made late, also those that a worker started for
/// stuck ones ran before the culprit returned (the count used to take only the timers still waiting at its return:
/// "0 timers waited" while 50 timers had each waited about 55 ms). Real threads, in a process of its own (the pool
/// must have no worker free beside the culprits); waits are bounded generously (they only catch a hang), and no
/// upper bound of real time is asserted.
@Suite struct PoolStallReportTests {
    private static let aloneVariable = "TEMPO_POOL_STALL_ALONE"

    @Test func aStallOnThePoolCountsTheTimersThatWaitedForAWorkerWhileItRan() throws {
        if ProcessInfo.processInfo.environment[Self.aloneVariable] != nil {
            try measureAlone()
            return
        }
        let (status, text) = try runAlone(suite: "PoolStallReportTests", variable: Self.aloneVariable)
        #expect(status == 0, "the measurement alone failed:\n\(text)")
        #expect(text.contains("pool stalls:"), "the measurement did not run:\n\(text)")
    }

    /// Polls `condition` every millisecond for up to 60 s.
    private static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<60_000 {
            if condition() { return true }
            usleep(1_000)
        }
        return false
    }

    private func measureAlone() throws {
        let instrument = RecordingInstrument(prefix: "stall44-")
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let scheduler = SystemScheduler.shared
        // The pool has one worker per processor (at least 2), none started yet in this process. One culprit more than
        // that: the first of a wake runs on the driver thread that woke, the others hold every worker.
        let workers = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let culprits = workers + 1
        let victimCount = 50
        let victimsDone = Atomic<Int>(0)
        let culpritsDone = Atomic<Int>(0)
        let deadline = scheduler.now(.monotonic) + .milliseconds(300)
        var timers: [TempoTimer] = []
        for _ in 0..<culprits {
            // Each culprit holds its thread until every victim has run (or 60 s: a hang), then 20 ms more.
            timers.append(
                try TempoTimer(.at(.monotonic(deadline)).labeled("stall44-culprit")) { _ in
                    _ = Self.eventually { victimsDone.load(ordering: .relaxed) == victimCount }
                    usleep(20_000)
                    culpritsDone.add(1, ordering: .relaxed)
                }.start())
        }
        for _ in 0..<victimCount {
            timers.append(
                try TempoTimer(.at(.monotonic(deadline + .milliseconds(20))).labeled("stall44-victim")) { _ in
                    victimsDone.add(1, ordering: .relaxed)
                }.start())
        }
        defer { for timer in timers { timer.cancel() } }

        #expect(Self.eventually { culpritsDone.load(ordering: .relaxed) == culprits })
        #expect(Self.eventually { instrument.stalls.count == culprits })
        let stalls = instrument.stalls
        let onPool = stalls.filter { $0.lane == .deliveryPool }
        print("pool stalls: \(onPool.map(\.delayed)); all: \(stalls)")
        // Every worker was held by a culprit when the victims came due, so every victim waited for one: the pool
        // started a worker for them once its workers had been stuck for 50 ms, and it ran them all before any
        // culprit returned.
        #expect(onPool.count >= workers, "\(stalls)")
        for stall in onPool {
            #expect(stall.delayed >= victimCount, "\(stall)")
        }
        let victims = instrument.ticks.filter { $0.label?.name == "stall44-victim" }
        #expect(victims.count == victimCount)
        let late = victims.filter { $0.tick.lateness >= .milliseconds(40) }.count
        #expect(late == victimCount, "\(late) of \(victimCount) victims were 40 ms late or more")
    }
}
