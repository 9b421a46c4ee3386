import Dispatch
import Synchronization
import Tempo

extension MassTimerBench {
    static func benchTempo(
        count: Int,
        progress: (Double) -> Void
    ) throws(TempoError) -> (arm: Duration, cancel: Duration, bytes: Int64) {
        var timers: [TempoTimer] = []
        timers.reserveCapacity(count)
        let heapBefore = heapBytes()
        let armStart = now()
        for index in 0..<count {
            let timer = try TempoTimer(every: .seconds(3600), repeats: .once) { _ in }
            timer.start()
            timers.append(timer)
            report(index, of: count, progress)
        }
        let armed = now() - armStart
        let bytes = heapBytes() - heapBefore
        let cancelStart = now()
        for (index, timer) in timers.enumerated() {
            timer.cancel()
            report(index, of: count, progress)
        }
        timers.removeAll()
        return (armed, now() - cancelStart, bytes)
    }

    static func benchDispatch(count: Int, progress: (Double) -> Void) -> (arm: Duration, cancel: Duration, bytes: Int64)
    {
        let queue = DispatchQueue(label: "tempo.bench.dispatch")
        var sources: [any DispatchSourceTimer] = []
        sources.reserveCapacity(count)
        let heapBefore = heapBytes()
        let armStart = now()
        for index in 0..<count {
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + .seconds(3600), leeway: .nanoseconds(0))
            source.setEventHandler {}
            source.resume()
            sources.append(source)
            report(index, of: count, progress)
        }
        let armed = now() - armStart
        let bytes =
            heapBytes() - heapBefore
        let cancelStart = now()
        for (index, source) in sources.enumerated() {
            source.cancel()
            report(index, of: count, progress)
        }
        sources.removeAll()
        // Cancellation completes on the queue: wait for it so the next measurement starts clean.
        queue.sync {}
        return (armed, now() - cancelStart, bytes)
    }

    static func benchTasks(
        count: Int,
        progress: @Sendable (Double) -> Void
    ) async -> (arm: Duration, cancel: Duration, bytes: Int64) {
        let counters = TaskCounters()
        var tasks: [Task<Void, Never>] = []
        tasks.reserveCapacity(count)
        let heapBefore = heapBytes()
        let armStart = now()
        for index in 0..<count {
            tasks.append(
                Task {
                    counters.sleeping.add(1, ordering: .relaxed)
                    try? await Task.sleep(for: .seconds(3600))
                    counters.ended.add(1, ordering: .relaxed)
                })
            report(index, of: count, progress)
        }
        // A task is armed once it runs up to its sleep; wait for all of them.
        while counters.sleeping.load(ordering: .relaxed) < count {
            await Task.yield()
        }
        let armed = now() - armStart
        let bytes = heapBytes() - heapBefore
        let cancelStart = now()
        for (index, task) in tasks.enumerated() {
            task.cancel()
            report(index, of: count, progress)
        }
        while counters.ended.load(ordering: .relaxed) < count {
            await Task.yield()
        }
        tasks.removeAll()
        return (armed, now() - cancelStart, bytes)
    }
}

/// How many benchmark tasks reached their sleep and how many ended.
private final class TaskCounters: Sendable {
    let sleeping = Atomic<Int>(0)
    let ended = Atomic<Int>(0)
}
