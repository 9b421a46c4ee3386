import Benchmark
import Dispatch
import Tempo

/// How many timers are armed in the background while an operation is measured.
let sizes = [10_000, 100_000, 1_000_000]
/// Operations per measured iteration (the results are per operation).
let batch = 1_000
/// Background and measured timers are armed this far out, so none fires during the run.
let farOut = Duration.seconds(3_600)

func label(_ size: Int) -> String {
    size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1_000)k"
}

/// Per-operation benchmarks: time per operation and mallocs per operation.
var perOperation: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 200
    )
}

/// Registers every benchmark for one peer.
func register<Peer: TimerPeer>(_ peer: Peer.Type) {
    for size in sizes where size <= Peer.maximumArmed {
        let name = "\(Peer.name)/\(label(size))"
        let state = Holder<Peer>()
        let setup: Benchmark.BenchmarkSetupHook = { state.armed = ArmedSet<Peer>(size: size) }
        let teardown: Benchmark.BenchmarkTeardownHook = {
            state.armed?.teardown()
            state.armed = nil
        }

        Benchmark(
            "Arm/\(name)", configuration: perOperation,
            closure: { benchmark in
                state.armed!.measureArm(benchmark)
            }, setup: setup, teardown: teardown)

        Benchmark(
            "CancelInArmOrder/\(name)", configuration: perOperation,
            closure: { benchmark in
                state.armed!.measureCancelInOrder(benchmark)
            }, setup: setup, teardown: teardown)

        Benchmark(
            "CancelRandom/\(name)", configuration: perOperation,
            closure: { benchmark in
                state.armed!.measureCancelRandom(benchmark)
            }, setup: setup, teardown: teardown)

        Benchmark(
            "ArmThenCancel/\(name)", configuration: perOperation,
            closure: { benchmark in
                state.armed!.measureArmThenCancel(benchmark)
            }, setup: setup, teardown: teardown)
    }
    registerWholeRun(peer)
}

let benchmarks: @Sendable () -> Void = {
    register(WheelValuePeer.self)
    register(WheelDeadlinePeer.self)
    register(WheelClosurePeer.self)
    register(TempoTimerPeer.self)
    register(DispatchPeer.self)
    register(NIOTaskPeer.self)
    register(NIOCallbackPeer.self)
    register(TaskSleepPeer.self)
    registerIdleBaseline()
    registerThreadedArm()
}
