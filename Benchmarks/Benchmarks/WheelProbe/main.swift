// A second, independent check of the wheel's benchmark figures, outside package-benchmark: its own loops, its own
// clock reads, one line per run. `swift run -c release WheelProbe` from the Benchmarks folder.
import CProcessStats
import Dispatch
import Foundation
import Tempo

final class Ignore: TimingWheelHandler {
    func timerFired(value: UInt64) {}
}

func nanoseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

// 1. schedule(after:) against schedule(at:) with 1M timers armed an hour out, 100k arms per round, alternating.
do {
    let wheel = try! TimingWheel(configuration: .init(delivery: .immediate), handler: Ignore())
    var background: [TimingWheel.Handle] = []
    background.reserveCapacity(1_000_000)
    for value in 0..<1_000_000 { background.append(try! wheel.schedule(after: .seconds(3_600), value: UInt64(value))) }
    var fresh: [TimingWheel.Handle] = []
    fresh.reserveCapacity(100_000)
    var after: [Double] = []
    var at: [Double] = []
    for _ in 0..<15 {
        after.append(
            nanoseconds { for _ in 0..<100_000 { fresh.append(try! wheel.schedule(after: .seconds(3_600), value: 1)) } }
                / 100_000)
        for handle in fresh { wheel.cancel(handle) }
        fresh.removeAll(keepingCapacity: true)
        let base = wheel.now + .seconds(3_600)
        at.append(
            nanoseconds { for _ in 0..<100_000 { fresh.append(try! wheel.schedule(at: .monotonic(base), value: 1)) } }
                / 100_000)
        for handle in fresh { wheel.cancel(handle) }
        fresh.removeAll(keepingCapacity: true)
    }
    print(
        "arm at 1M armed: schedule(after:) median \(median(after)) ns, schedule(at:) median \(median(at)) ns"
            + " (15 rounds of 100k; after: \(after.map { Int($0) }), at: \(at.map { Int($0) }))")
    for handle in background { wheel.cancel(handle) }
}

// 2. Bytes per value timer: mallinfo2 before and after arming, the handle array reserved before the baseline.
for count in [100_000, 1_000_000] {
    var handles: [TimingWheel.Handle] = []
    handles.reserveCapacity(count)
    let before = cprocessstats_malloc_bytes_in_use()
    let wheel = try! TimingWheel(configuration: .init(delivery: .immediate), handler: Ignore())
    for value in 0..<count { handles.append(try! wheel.schedule(after: .seconds(3_600), value: UInt64(value))) }
    let after = cprocessstats_malloc_bytes_in_use()
    print("bytes per value timer at \(count): \(Double(after - before) / Double(count)) (handles not counted)")
    for handle in handles { wheel.cancel(handle) }
}

// 3. Arms per ms from 1 and 2 threads on a ShardedTimingWheel, each run with its CPU time / wall time.
func cpuNanoseconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3
}

func run(threads: Int, perThread: Int) -> (rate: Double, cpuOverWall: Double) {
    let wheel = try! ShardedTimingWheel(
        configuration: .init(delivery: .immediate, initialCapacity: 2 * perThread), shardCount: 2, handler: Ignore())
    let go = DispatchSemaphore(value: 0)
    let ready = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for _ in 0..<threads {
        done.enter()
        Thread {
            // Warm-up: arm and cancel once, so the measured pass reuses table entries whose pages are mapped (as a
            // running server does) instead of measuring the kernel's page faults.
            var handles: [TimingWheel.Handle] = []
            handles.reserveCapacity(perThread)
            for value in 0..<perThread {
                handles.append(try! wheel.schedule(after: .seconds(3_600), value: UInt64(value)))
            }
            for handle in handles { wheel.cancel(handle) }
            ready.signal()
            go.wait()
            for value in 0..<perThread { _ = try! wheel.schedule(after: .seconds(3_600), value: UInt64(value)) }
            done.leave()
        }.start()
    }
    for _ in 0..<threads { ready.wait() }
    let cpu = cpuNanoseconds()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<threads { go.signal() }
    done.wait()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start)
    return (Double(threads * perThread) / (wall / 1e6), (cpuNanoseconds() - cpu) / wall)
}

var one: [Double] = []
var two: [(rate: Double, cpuOverWall: Double)] = []
for round in 0..<12 {
    let single = run(threads: 1, perThread: 2_000_000)
    let double = run(threads: 2, perThread: 2_000_000)
    one.append(single.rate)
    two.append(double)
    print(
        "round \(round): 1 thread \(Int(single.rate)) arms/ms (cpu/wall \(String(format: "%.2f", single.cpuOverWall)));"
            + " 2 threads \(Int(double.rate)) arms/ms (cpu/wall \(String(format: "%.2f", double.cpuOverWall)))")
}
let parallel = two.filter { $0.cpuOverWall >= 1.8 }.map(\.rate)
print(
    "median 1 thread \(Int(median(one))) arms/ms; median 2 threads \(Int(median(two.map(\.rate)))) arms/ms"
        + " (ratio \(String(format: "%.2f", median(two.map(\.rate)) / median(one))));"
        + " 2-thread runs with cpu/wall >= 1.8: \(parallel.count), median"
        + " \(parallel.isEmpty ? 0 : Int(median(parallel))) (ratio"
        + " \(String(format: "%.2f", parallel.isEmpty ? 0 : median(parallel) / median(one))))")
