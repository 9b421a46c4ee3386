import Benchmark
import CProcessStats
import Dispatch
import Foundation
import Tempo

/// Arms per millisecond with 1 and 2 threads arming at once: one `TimingWheel` (one lock) against a
/// `ShardedTimingWheel` (a shard per thread). Each run also reports the process's CPU time divided by the wall
/// time of the arming window (in percent): two threads can only show a speed-up when it is near 200.
func registerThreadedArm() {
    let perThread = 500_000
    for threads in [1, 2] {
        for sharded in [false, true] {
            let name = "ArmRate/\(sharded ? "ShardedWheel" : "Wheel")/\(threads)threads"
            Benchmark(
                name,
                configuration: .init(
                    metrics: [
                        .custom("armsPerMillisecond", useScalingFactor: false),
                        .custom("cpuPercentOfWall", useScalingFactor: false),
                    ],
                    warmupIterations: 1, scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 7)
            ) { benchmark in
                let run = armFromThreads(threads: threads, perThread: perThread, sharded: sharded)
                benchmark.measurement(
                    .custom("armsPerMillisecond", useScalingFactor: false),
                    Int(Double(threads * perThread) / (Double(run.wallNanoseconds) / 1e6)))
                benchmark.measurement(
                    .custom("cpuPercentOfWall", useScalingFactor: false),
                    Int(100 * Double(run.cpuNanoseconds) / Double(run.wallNanoseconds)))
            }
        }
    }
}

/// Arms `perThread` value timers an hour out from each of `threads` new threads, started together (after each
/// thread armed and cancelled as many, unmeasured); returns the wall time from the start to the last thread's end
/// and the process CPU time over that window.
func armFromThreads(threads: Int, perThread: Int, sharded: Bool) -> (wallNanoseconds: Int, cpuNanoseconds: Int) {
    let handler = CountingHandler(counter: FireCounter())
    let configuration = TimingWheel.Configuration(delivery: .immediate, initialCapacity: threads * perThread)
    let arm: @Sendable () -> [TimingWheel.Handle]
    let cancel: @Sendable ([TimingWheel.Handle]) -> Void
    if sharded {
        let wheel = try! ShardedTimingWheel(configuration: configuration, shardCount: 2, handler: handler)
        arm = { (0..<perThread).map { try! wheel.schedule(after: farOut, value: UInt64($0)) } }
        cancel = { for handle in $0 { wheel.cancel(handle) } }
    } else {
        let wheel = try! TimingWheel(configuration: configuration, handler: handler)
        arm = { (0..<perThread).map { try! wheel.schedule(after: farOut, value: UInt64($0)) } }
        cancel = { for handle in $0 { wheel.cancel(handle) } }
    }
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for _ in 0..<threads {
        finished.enter()
        let thread = Thread {
            // Warm-up: arm and cancel once, so the measured pass reuses table entries whose pages are mapped (as
            // a running server does) instead of measuring the kernel's page faults.
            cancel(arm())
            ready.signal()
            go.wait()
            _ = arm()
            finished.leave()
        }
        thread.start()
    }
    for _ in 0..<threads { ready.wait() }
    let cpuBefore = processCPUNanoseconds()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<threads { go.signal() }
    finished.wait()
    let wall = Int(DispatchTime.now().uptimeNanoseconds - start)
    return (wall, processCPUNanoseconds() - cpuBefore)
}

/// User plus system CPU time of the whole process so far.
func processCPUNanoseconds() -> Int {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let user = Int(usage.ru_utime.tv_sec) * 1_000_000_000 + Int(usage.ru_utime.tv_usec) * 1_000
    let system = Int(usage.ru_stime.tv_sec) * 1_000_000_000 + Int(usage.ru_stime.tv_usec) * 1_000
    return user + system
}
