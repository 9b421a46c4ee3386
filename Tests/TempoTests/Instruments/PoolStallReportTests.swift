import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Tempo

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
///
/// The victims are armed only once a culprit runs on every worker, each culprit armed after the last one started:
/// the first version armed them all for two instants 20 ms apart, and when a loaded machine delayed the wake or a
/// worker's start, a worker took the victims before the last culprit (they ran on time, nothing stalled; one CI run
/// under ThreadSanitizer, and 1 run in 30 beside six busy loops).
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

    /// Whether the calling thread is one of the delivery pool's workers, by the name the pool gives them (read from
    /// `/proc`: Linux, where this test runs; elsewhere `false`).
    private static func onPoolWorker() -> Bool {
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "tempo.delivery"
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
        let pool = DeliveryPool.shared
        // Every baseline worker started and waiting, so that which thread runs a culprit depends on no thread start.
        pool.startWorkers()
        #expect(Self.eventually { pool.idleCount == pool.workerLimit })

        let victimCount = 50
        let victimsDone = Atomic<Int>(0)
        let culpritsRunning = Atomic<Int>(0)
        let culpritsDone = Atomic<Int>(0)
        var timers: [TempoTimer] = []
        defer { for timer in timers { timer.cancel() } }

        // Culprits one at a time, each running before the next is armed, until every worker of the pool runs one and,
        // with the timerfd backend, one runs on a driver thread too: a driver thread whose other thread stands by
        // drains mailboxes itself, so with both free it would run the victims on time (one CI run under ASan, where
        // every culprit had gone to the pool). The clock's other thread then takes over waiting, with no thread
        // standing by: the victims go to the pool. (The Dispatch backend never drains on a driver thread.) Each culprit
        // holds its thread until every victim has run (or 60 s: a hang), and for at least 60 ms, over the
        // instrument's 50 ms stall threshold.
        let driverHeld = ProcessInfo.processInfo.environment["TEMPO_SCHEDULER_BACKEND"] == "dispatch"
        let culpritsOnDriver = Atomic<Int>(driverHeld ? 1 : 0)
        var lastCulpritArmed = scheduler.now(.monotonic)
        while pool.startedCount < pool.workerLimit || pool.idleCount > 0
            || culpritsOnDriver.load(ordering: .relaxed) == 0
        {
            try #require(
                timers.count <= pool.workerLimit + 4, "culprits do not fill the threads: \(timers.count) armed")
            lastCulpritArmed = scheduler.now(.monotonic)
            timers.append(
                try TempoTimer(.after(.milliseconds(1)).labeled("stall44-culprit")) { _ in
                    let start = scheduler.now(.monotonic)
                    if !Self.onPoolWorker() { culpritsOnDriver.add(1, ordering: .relaxed) }
                    culpritsRunning.add(1, ordering: .relaxed)
                    _ = Self.eventually { victimsDone.load(ordering: .relaxed) == victimCount }
                    _ = Self.eventually { scheduler.now(.monotonic) - start >= .milliseconds(60) }
                    culpritsDone.add(1, ordering: .relaxed)
                }.start())
            try #require(Self.eventually { culpritsRunning.load(ordering: .relaxed) == timers.count })
        }
        let culprits = timers.count

        // Every worker holds a culprit: the victims find none, and wait until the pool starts one more for them (once
        // every worker has been busy for `DeliveryPool.stuckAfter`).
        let victimDeadline = scheduler.now(.monotonic) + .milliseconds(1)
        for _ in 0..<victimCount {
            timers.append(
                try TempoTimer(.at(.monotonic(victimDeadline)).labeled("stall44-victim")) { _ in
                    victimsDone.add(1, ordering: .relaxed)
                }.start())
        }

        #expect(Self.eventually { culpritsDone.load(ordering: .relaxed) == culprits })
        #expect(Self.eventually { instrument.stalls.count == culprits })
        let stalls = instrument.stalls
        let onPool = stalls.filter { $0.lane == .deliveryPool }
        print("pool stalls: \(onPool.map(\.delayed)); all: \(stalls)")
        let victims = instrument.ticks.filter { $0.label?.name == "stall44-victim" }
        #expect(victims.count == victimCount)
        // The measurement needs the victims on the pool. Until the threads carried their names (ThreadNameTests),
        // `onPoolWorker()` was false everywhere, so the first culprit counted as a driver thread's wherever it ran; in
        // about 1 run in 20 under load both driver threads were free and one ran the victims on time. Since, 0 runs in
        // 50 beside four busy loops. If a driver thread still runs them, the pool was not what made them wait and
        // there is nothing to count: said, not failed.
        guard victims.allSatisfy({ $0.lane == .deliveryPool }) else {
            print("pool stalls: not measured, the victims ran on \(Set(victims.map { "\($0.lane)" }))")
            return
        }
        // Each culprit on the pool held its worker while all 50 victims waited for one.
        #expect(onPool.count >= pool.workerLimit, "\(stalls)")
        for stall in onPool {
            #expect(stall.delayed >= victimCount, "\(stall)")
        }
        // The worker that ran them started no sooner than `stuckAfter` after the last culprit's worker took it, which
        // was after that culprit was armed; so each victim was at least that late, less the time from that arming to
        // the victims' deadline (which a loaded machine may stretch).
        let floor = DeliveryPool.stuckAfter - (victimDeadline - lastCulpritArmed)
        let early = victims.filter { $0.tick.lateness < floor }
        #expect(early.isEmpty, "victims later than their deadline by less than \(floor): \(early.map(\.tick.lateness))")
        print("victims late by \(victims.map(\.tick.lateness).min() ?? .zero) or more; floor \(floor)")
    }
}
