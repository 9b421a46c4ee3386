import Dispatch
import Synchronization
import Tempo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue #27's done-when test, on the real clock: one `.immediate` handler that blocks its driver thread for
/// 200 ms among 100 timers due at the same instant. Waits are bounded generously (they only catch a hang); nothing
/// asserts an upper bound of real time.
@Suite struct StallReportTests {
    /// Polls `condition` every millisecond for up to 60 s.
    private static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<60_000 {
            if condition() { return true }
            usleep(1_000)
        }
        return false
    }

    @Test func aBlockingImmediateHandlerIsReportedByLabelWithTheTimersThatWaitedBehindIt() throws {
        let instrument = RecordingInstrument(prefix: "stall27-")
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let scheduler = SystemScheduler.shared
        let finished = Atomic<Int>(0)
        // One deadline for all: the driver takes the 100 actions in one wake, in the order they were armed (FIFO
        // among equal deadlines), so the culprit, armed first, runs first and the other 99 wait behind it.
        let deadline = TimerDeadline.monotonic(scheduler.now(.monotonic) + .seconds(1))
        var timers: [TempoTimer] = []
        timers.append(
            try TempoTimer(.at(deadline, delivery: .immediate).labeled("stall27-culprit")) { _ in
                usleep(200_000)
                finished.add(1, ordering: .relaxed)
            }.start())
        for _ in 1..<100 {
            timers.append(
                try TempoTimer(.at(deadline).labeled("stall27-victim")) { _ in finished.add(1, ordering: .relaxed) }
                    .start())
        }
        // On a machine loaded enough that arming took the whole second, some victims came due in a later wake.
        let armedInTime = scheduler.now(.monotonic) < deadline.instant
        defer { for timer in timers { timer.cancel() } }

        #expect(Self.eventually { finished.load(ordering: .relaxed) == 100 && !instrument.stalls.isEmpty })
        let stalls = instrument.stalls
        #expect(stalls.count == 1, "\(stalls)")
        let stall = try #require(stalls.first)
        #expect(stall.label?.name == "stall27-culprit")
        #expect(stall.label?.fileID == #fileID)
        #expect(stall.lane == .driverThread)
        #expect(stall.clock == .monotonic)
        #expect(stall.duration >= .milliseconds(200))
        if armedInTime {
            // At least: another test's timer due in the same wake would wait behind it too.
            #expect(stall.delayed >= 99, "\(stall)")
        } else {
            #expect(stall.delayed >= 1, "\(stall)")
        }
        // The victims' ticks say the same: each was handed over after the culprit returned.
        #expect(Self.eventually { instrument.ticks.filter { $0.label?.name == "stall27-victim" }.count == 99 })
        let victims = instrument.ticks.filter { $0.label?.name == "stall27-victim" }
        let waited = victims.filter { $0.tick.lateness >= .milliseconds(200) }.count
        #expect(waited >= (armedInTime ? 99 : 1), "\(waited) of 99 victims were handed over after the stall")
    }

    @Test func aHandlerUnderTheThresholdIsNoStallButItsDurationIsReported() throws {
        let instrument = RecordingInstrument(prefix: "quick27", stallThreshold: .seconds(30))
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let done = DispatchSemaphore(value: 0)
        let timer = try TempoTimer(.after(.milliseconds(5), delivery: .immediate).labeled("quick27")) { _ in
            usleep(20_000)
            done.signal()
        }.start()
        defer { timer.cancel() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(Self.eventually { !instrument.handlers.isEmpty })
        let handler = try #require(instrument.handlers.first)
        #expect(handler.duration >= .milliseconds(20))
        #expect(handler.lane == .driverThread)
        #expect(instrument.stalls.isEmpty)
        #expect(!instrument.pending.isEmpty)
    }
}
