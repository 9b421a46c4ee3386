import Benchmark
import CProcessStats
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Bytes malloc has handed out and not taken back (arenas and mmapped blocks).
func mallocBytesInUse() -> Int {
    Int(cprocessstats_malloc_bytes_in_use())
}

/// Voluntary plus involuntary context switches of the whole process so far.
func contextSwitches() -> Int {
    cprocessstats_context_switches()
}

/// One run per iteration, reporting the custom metrics only: `samples` runs at most, within `maxDuration`.
///
/// The expiry rows take 9 samples within 60 s: one expiry's cost moves by tens of percent between runs on a shared
/// machine, and with 1 to 3 samples (the default, which 1 s allows; the rows' first form, issue #44) they disagreed
/// with ExpiryProbe's alternating rounds.
func wholeRun(_ metrics: String..., samples: Int = 3, maxDuration: Duration = .seconds(1)) -> Benchmark.Configuration {
    .init(
        metrics: metrics.map { .custom($0, useScalingFactor: false) },
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: maxDuration,
        maxIterations: samples
    )
}

/// Waits until the process is quiet (under 1 ms of CPU time in 20 ms, at most 3 s), as ExpiryProbe does before
/// each round: the previous sample's clean-up (Dispatch releases cancelled sources on its own threads after
/// `cancel()` returns) must not run into the next one.
func settleProcess() {
    var previous = processCPUNanoseconds()
    for _ in 0..<150 {
        usleep(20_000)
        let current = processCPUNanoseconds()
        if current - previous < 1_000_000 { return }
        previous = current
    }
}

/// Expiry cost, bytes per timer and wakeups for one peer.
func registerWholeRun<Peer: TimerPeer>(_ peer: Peer.Type) {
    for size in sizes where size <= Peer.maximumArmed {
        // Every timer due at one instant, after the last is armed; cost = (last callback - deadline) / count.
        let configuration = wholeRun("expiryNanosecondsPerTimer", samples: 9, maxDuration: .seconds(60))
        Benchmark("Expiry/\(Peer.name)/\(label(size))", configuration: configuration) { benchmark in
            settleProcess()
            let counter = FireCounter()
            let peer = Peer(capacity: size, counter: counter)
            counter.expect(size)
            let lead = (Peer.leadPerTimer * size + .milliseconds(200)).wholeNanoseconds
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(lead)
            var tokens: [Peer.Token] = []
            tokens.reserveCapacity(size)
            peer.withOwner {
                for _ in 0..<size { tokens.append(peer.arm(atUptime: deadline)) }
            }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                benchmark.error("arming \(size) timers took longer than the lead of \(lead) ns")
            }
            counter.done.wait()
            let cost = Int(counter.lastUptime.load(ordering: .relaxed) - deadline) / size
            benchmark.measurement(.custom("expiryNanosecondsPerTimer", useScalingFactor: false), cost)
            peer.withOwner {
                for token in tokens { peer.cancel(token) }
            }
            tokens = []
            peer.shutdown()
        }
    }

    // Bytes per armed timer, counting everything the timers hold, the handle array included: it is allocated after
    // the baseline reading and nothing is subtracted. Peers are measured up to their largest benchmarked size.
    for bytesSize in [100_000, 1_000_000] where bytesSize <= Peer.maximumArmed {
        Benchmark(
            "BytesPerTimer/\(Peer.name)/\(label(bytesSize))",
            configuration: wholeRun("bytesPerArmedTimer", "bytesPerArmedTimerWithoutHandle")
        ) {
            benchmark in
            let counter = FireCounter()
            let before = mallocBytesInUse()
            var tokens: [Peer.Token] = []
            tokens.reserveCapacity(bytesSize)
            // The default table size: the wheel grows (in fixed chunks) as it would in production.
            let peer = Peer(capacity: 1_024, counter: counter)
            peer.withOwner {
                for _ in 0..<bytesSize { tokens.append(peer.arm(after: farOut)) }
            }
            let after = mallocBytesInUse()
            let handleBytes = MemoryLayout<Peer.Token>.stride * tokens.capacity
            benchmark.measurement(.custom("bytesPerArmedTimer", useScalingFactor: false), (after - before) / bytesSize)
            // The same without the caller's handle array: what the timers themselves hold.
            benchmark.measurement(
                .custom("bytesPerArmedTimerWithoutHandle", useScalingFactor: false),
                (after - before - handleBytes) / bytesSize)
            if !Peer.shutdownCancelsAll {
                peer.withOwner {
                    for token in tokens { peer.cancel(token) }
                }
            }
            tokens = []
            peer.shutdown()
        }
    }

    let quietSize = min(1_000_000, Peer.maximumArmed)
    Benchmark(
        "ContextSwitches5s/\(Peer.name)/\(label(quietSize))", configuration: wholeRun("contextSwitchesIn5s")
    ) { benchmark in
        let counter = FireCounter()
        let peer = Peer(capacity: quietSize, counter: counter)
        var tokens: [Peer.Token] = []
        tokens.reserveCapacity(quietSize)
        peer.withOwner {
            for _ in 0..<quietSize { tokens.append(peer.arm(after: farOut)) }
        }
        sleep(1)  // let arming's own work settle
        let before = contextSwitches()
        sleep(5)
        let after = contextSwitches()
        benchmark.measurement(.custom("contextSwitchesIn5s", useScalingFactor: false), after - before)
        if !Peer.shutdownCancelsAll {
            peer.withOwner {
                for token in tokens { peer.cancel(token) }
            }
        }
        tokens = []
        peer.shutdown()
    }
}

/// Context switches of the benchmark process itself over 5 s with no timers at all.
func registerIdleBaseline() {
    Benchmark("ContextSwitches5s/Idle/0", configuration: wholeRun("contextSwitchesIn5s")) { benchmark in
        sleep(1)
        let before = contextSwitches()
        sleep(5)
        benchmark.measurement(.custom("contextSwitchesIn5s", useScalingFactor: false), contextSwitches() - before)
    }
}
