import CTempoShims
import CTempoToolsShims
import Dispatch
import Synchronization
package import Tempo

/// A quick, dependency-free benchmark of arming and cancelling many timers at once.
///
/// Each run arms `count` one-shot timers due in an hour (so none fires), measures the heap they hold, then
/// cancels them all. Times come from the monotonic clock and are wall-clock times on a possibly busy
/// machine: compare subjects measured in the same run, not across runs. Heap bytes come from glibc's
/// `mallinfo2` (`uordblks + hblkhd`) before and after arming; on other platforms they are reported as 0.
///
/// Thread-safety: run one measurement at a time; ``run(_:count:progress:)`` must not be called concurrently.
package enum MassTimerBench {
    /// What is armed.
    package enum Subject: String, CaseIterable, Sendable, CustomStringConvertible {
        /// One started ``TempoTimer`` per timer, on ``SystemScheduler/shared``.
        case tempoTimer = "tempo-timer"
        /// One timer per timer in a ``TimingWheel`` (default 1 ms tick), armed with a value for its handler.
        case wheel
        /// One resumed `DispatchSourceTimer` per timer.
        case dispatchSource = "dispatch-source"
        /// One `Task` per timer, suspended in `Task.sleep(for:)`.
        case taskSleep = "task-sleep"

        /// The subject's command-line name.
        package var description: String { rawValue }
    }

    /// The phase of a run that progress is reported for.
    package enum Phase: String, Sendable, CustomStringConvertible {
        /// Creating and arming the timers.
        case arm
        /// Cancelling and releasing the timers.
        case cancel

        /// The phase's name, `arm` or `cancel`.
        package var description: String { rawValue }
    }

    /// The cost of arming and cancelling `count` timers of one subject.
    package struct Result: Sendable {
        /// What was armed.
        package let subject: Subject
        /// How many timers.
        package let count: Int
        /// Wall-clock nanoseconds per timer to create and arm it.
        package let armNanoseconds: Double
        /// Wall-clock nanoseconds per timer to cancel it and release it.
        package let cancelNanoseconds: Double
        /// Heap bytes held per armed timer (0 where `mallinfo2` is unavailable).
        package let bytesPerTimer: Double
    }

    /// Arms `count` timers of `subject`, then cancels them, and reports the cost per timer.
    ///
    /// - Parameters:
    ///   - subject: What to arm.
    ///   - count: How many timers, from 1 to 10,000,000.
    ///   - progress: Called with the phase and the fraction of its timers armed or cancelled so far (0...1), on
    ///     the calling task, about twenty times per phase, the last time with 1 when the phase is complete.
    /// - Returns: Nanoseconds per arm and per cancel, and heap bytes per timer.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` naming `count` when it is out of range.
    package static func run(
        _ subject: Subject,
        count: Int,
        progress: @Sendable (Phase, Double) -> Void = { _, _ in }
    ) async throws(TempoError) -> Result {
        guard (1...10_000_000).contains(count) else {
            throw TempoError(.invalidCount, value: "\(count)", message: "count must be 1...10,000,000, got \(count)")
        }
        let measured = await measure(subject, count: count, progress: progress)
        let perTimer = { (duration: Duration) in Double(duration.nanoseconds(rounded: .up)) / Double(count) }
        return Result(
            subject: subject,
            count: count,
            armNanoseconds: perTimer(measured.arm),
            cancelNanoseconds: perTimer(measured.cancel),
            bytesPerTimer: max(0, Double(measured.bytes) / Double(count))
        )
    }

    static func heapBytes() -> Int64 {
        #if os(Linux)
        Int64(ctempo_heap_bytes_in_use())
        #else
        0
        #endif
    }

    /// The heap in use once it has stopped shrinking: readings 20 ms apart until two agree within 64 KiB, for at
    /// most 2 s.
    ///
    /// A baseline taken at once would still count what an earlier run frees on other threads: libdispatch releases
    /// cancelled sources on its manager thread after `cancel()` returned, and 100k of them (about 41 MB) freed
    /// while the next run arms would be subtracted from that run's bytes (1M Tempo timers read 197-205 B each
    /// after the 100k Dispatch run, 236-244 B in a process of their own).
    static func settledHeapBytes() async -> Int64 {
        var last = heapBytes()
        for _ in 0..<100 {
            try? await Task.sleep(for: .milliseconds(20))
            let reading = heapBytes()
            if abs(reading - last) < 65_536 { return reading }
            last = reading
        }
        return last
    }

    static func now() -> TimerInstant { PlatformClock.now(.monotonic) }

    /// Runs `body` over `0..<count` a twentieth at a time and reports each twentieth done, the last with 1 (the phase
    /// complete). The loops in `body` do the subject's work only: a progress check per timer (an integer division, the
    /// same for every subject) added its cost to both sides of each ratio and pulled the ratio toward 1.
    static func inTwentieths(
        of count: Int, _ phase: Phase, _ progress: (Phase, Double) -> Void, _ body: (Range<Int>) -> Void
    ) {
        let step = max(1, count / 20)
        var done = 0
        while done < count {
            let end = min(count, done + step)
            body(done..<end)
            done = end
            progress(phase, Double(done) / Double(count))
        }
    }
}
