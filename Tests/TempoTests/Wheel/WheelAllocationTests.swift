import Dispatch
import Synchronization
import Tempo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Allocations per driver tick of a timing wheel on the real `SystemScheduler`, counted by the `LD_PRELOAD`
/// allocator counter of `.ci/alloc-counter.c` (`tempo_alloc_count`). Without it the suite is skipped:
/// `LD_PRELOAD=/tmp/libcount.so swift test --disable-xctest --filter WheelAllocationTests`.
@Suite(.serialized, .enabled(if: AllocationCounter.isAvailable, "needs LD_PRELOAD of .ci/alloc-counter.c"))
struct WheelAllocationTests {
    @Test func theCounterSeesAHundredObjects() throws {
        let count = AllocationCounter.count
        let before = count()
        var objects: [Box] = []
        objects.reserveCapacity(100)
        let afterReserve = count()
        for index in 0..<100 { objects.append(Box(index)) }
        let after = count()
        #expect(afterReserve - before >= 1)
        #expect(after - afterReserve >= 100)
        #expect(objects.count == 100)
    }

    @Test(arguments: ["immediate", "default"])
    func aRepeatingWheelTimerAllocatesNothingPerDriverTick(delivery: String) throws {
        let ticker = try Reticker(delivery: delivery == "immediate" ? .immediate : .privateQueue)
        ticker.start()
        let finished = ticker.done.wait(timeout: .now() + .seconds(60)) == .success
        try #require(finished, "the repeating wheel timer did not reach \(Reticker.warmUp + Reticker.measured) ticks")
        let ticks = Reticker.measured
        let allocations = ticker.allocations.load(ordering: .acquiring)
        let perTick = Double(allocations) / Double(ticks)
        print(
            "TimingWheel driver (\(delivery) delivery): \(perTick) allocations per tick (\(allocations) in \(ticks) ticks)"
        )
        #expect(perTick < 0.1)
    }
}

/// A heap object for the canary.
private final class Box {
    let value: Int
    init(_ value: Int) { self.value = value }
}

/// A value timer that re-arms itself from its callback (a repeating timer on the wheel) and reads the allocation
/// counter on the driver thread after a warm-up and after the measured ticks.
private final class Reticker: TimingWheelHandler, @unchecked Sendable {
    // @unchecked: `wheel` is set once in `init` before the first timer is armed; the rest is atomic or immutable.
    static let warmUp = 50
    static let measured = 200

    let ticks = Atomic<Int>(0)
    let baseline = Atomic<UInt64>(0)
    let allocations = Atomic<UInt64>(0)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var wheel: TimingWheel?

    init(delivery: TimerDelivery) throws {
        let configuration = TimingWheel.Configuration(resolution: .milliseconds(1), delivery: delivery)
        wheel = try TimingWheel(configuration: configuration, handler: self)
    }

    func start() {
        _ = try? wheel?.schedule(after: .milliseconds(1), value: 0)
    }

    func timerFired(value: UInt64) {
        let tick = ticks.add(1, ordering: .relaxed).newValue
        if tick == Self.warmUp { baseline.store(AllocationCounter.count(), ordering: .relaxed) }
        if tick == Self.warmUp + Self.measured {
            allocations.store(AllocationCounter.count() - baseline.load(ordering: .relaxed), ordering: .releasing)
            wheel = nil  // breaks the wheel -> handler -> wheel cycle
            done.signal()
            return
        }
        _ = try? wheel?.schedule(after: .milliseconds(1), value: value &+ 1)
    }
}
