import CTempoShims
import CTempoToolsShims
import Dispatch
import Synchronization
import Tempo

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LatencyProbe {
    /// The floor: a thread with 1 ns timer slack sleeping until each slot with an absolute `clock_nanosleep`.
    static func runFloor(_ recorder: LatencyRecorder, progress: (Double) -> Void) {
        DriverThread.start(name: "tempo.floor") {
            #if os(Linux)
            _ = ctempo_set_timer_slack(1)
            let clockID = PlatformClock.clockNumber(.monotonic)
            #endif
            var slot = 1
            while slot <= recorder.slots {
                let due = recorder.due(slot)
                #if os(Linux)
                let nanoseconds = due.nanosecondsRoundedUp
                _ = ctempo_sleep_until(clockID, nanoseconds / 1_000_000_000, nanoseconds % 1_000_000_000)
                #else
                // No absolute sleep here: a relative one is the best floor available.
                let remaining = due - PlatformClock.now(.monotonic)
                if remaining > .zero {
                    let nanoseconds = remaining.nanoseconds(rounded: .up)
                    var spec = timespec(
                        tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
                    nanosleep(&spec, nil)
                }
                #endif
                let now = PlatformClock.now(.monotonic)
                // Coalesce like the other backends: slots that are overdue as well fold into this tick.
                let last = recorder.coalescedSlot(from: slot, now: now)
                if recorder.record(slot: last, now: now) { return }
                slot = last + 1
            }
        }
        recorder.waitUntilDone(progress: progress)
    }

    /// A repeating `DispatchSourceTimer` with leeway 0 and the `.strict` flag.
    static func runDispatch(_ recorder: LatencyRecorder, progress: (Double) -> Void) {
        let queue = DispatchQueue(label: "tempo.probe.dispatch")
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        let first = recorder.due(1)
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: UInt64(first.nanosecondsRoundedUp)),
            repeating: .nanoseconds(Int(recorder.period.nanoseconds(rounded: .up))),
            leeway: .nanoseconds(0)
        )
        // `data` is read inside the handler through this box: the source is not Sendable.
        let data = SourceData(source)
        source.setEventHandler {
            let now = PlatformClock.now(.monotonic)
            recorder.record(fires: data.fires, now: now)
        }
        source.resume()
        recorder.waitUntilDone(progress: progress)
        source.cancel()
    }

    /// A ``TempoTimer`` on the shared system scheduler.
    static func runTempo(
        _ recorder: LatencyRecorder,
        delivery: TimerDelivery,
        progress: (Double) -> Void
    ) throws(TempoError) {
        let timer = try TempoTimer(
            .every(
                recorder.period, repeats: .times(recorder.slots), first: .at(.monotonic(recorder.due(1))),
                delivery: delivery)
        ) { tick in
            let now = PlatformClock.now(.monotonic)
            recorder.record(slot: tick.index, now: now)
        }
        timer.start()
        recorder.waitUntilDone(progress: progress)
        timer.cancel()
    }
}

/// Reads a timer source's `data` (slots since the last handler run) from its own event handler.
///
/// `@unchecked Sendable`: the source is only read from its serial queue's event handler, and libdispatch
/// documents `data` as valid there; nothing mutates the reference.
private final class SourceData: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(_ source: any DispatchSourceTimer) {
        self.source = source
    }

    var fires: Int { Int(source.data) }
}
