import Tempo

extension MassTimerBench {
    static func benchWheel(
        count: Int,
        progress: (Double) -> Void
    ) throws(TempoError) -> (arm: Duration, cancel: Duration, bytes: Int64) {
        var handles: [TimingWheel.Handle] = []
        handles.reserveCapacity(count)
        let heapBefore = heapBytes()
        let wheel = try TimingWheel(handler: IgnoringHandler())
        let armStart = now()
        for index in 0..<count {
            handles.append(try wheel.schedule(after: .seconds(3600), value: UInt64(index)))
            report(index, of: count, progress)
        }
        let armed = now() - armStart
        let bytes = heapBytes() - heapBefore
        let cancelStart = now()
        for (index, handle) in handles.enumerated() {
            wheel.cancel(handle)
            report(index, of: count, progress)
        }
        handles.removeAll()
        return (armed, now() - cancelStart, bytes)
    }
}

/// A wheel handler that does nothing: the benchmark's timers never fire.
private final class IgnoringHandler: TimingWheelHandler {
    func timerFired(value: UInt64) {}
}
