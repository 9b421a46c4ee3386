import Synchronization
import Tempo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Steady-state ticks allocate nothing: a repeating timer (default and `.immediate` delivery) and a shared
/// ticker, counted with the `malloc` interposer that CI preloads (`.ci/alloc-counter.c`).
///
/// Each measurement warms up first (the scheduler's table, the pool's ring and the pool's threads grow once),
/// then counts every allocation in the process over 200 delivered ticks and expects fewer than 0.1 per tick: one
/// allocation per tick anywhere on the path fails it, a few stray allocations of the test runner do not.
@Suite(
    .serialized,
    .enabled(if: AllocationCounter.isAvailable, "needs LD_PRELOAD of the allocation counter (.ci/alloc-counter.c)")
)
struct TickAllocationTests {
    private final class Ticks: Sendable {
        let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    private static let measuredTicks = 200
    private static let allowedPerTick = 0.1

    /// Waits until `ticks` reaches `target` (polling; `usleep` allocates nothing). Returns `false` on timeout.
    private static func wait(for ticks: Ticks, toReach target: Int) -> Bool {
        for _ in 0..<20_000 {
            if ticks.value >= target { return true }
            usleep(1_000)
        }
        return false
    }

    /// Counts allocations per tick once `ticks` is warm.
    /// The fewest allocations per tick over three windows of ``measuredTicks`` ticks each. The counter is
    /// process-wide, so a window can catch a stray allocation of another thread (the test runner's); an allocation
    /// made by every tick shows in every window, so the minimum still catches it.
    private static func allocationsPerTick(_ ticks: Ticks) -> Double? {
        guard wait(for: ticks, toReach: 50) else { return nil }
        var windows: [Double] = []
        windows.reserveCapacity(3)
        for _ in 0..<3 {
            let startTicks = ticks.value
            let before = AllocationCounter.count()
            guard wait(for: ticks, toReach: startTicks + measuredTicks) else { return nil }
            let after = AllocationCounter.count()
            let delivered = ticks.value - startTicks
            windows.append(Double(after - before) / Double(delivered))
        }
        print("  ↳ allocations per tick in each window: \(windows)")
        return windows.min()
    }

    @Test func theCounterSeesAllocations() {
        final class Object {}
        let before = AllocationCounter.count()
        var objects: [Object] = []
        objects.reserveCapacity(100)
        for _ in 0..<100 { objects.append(Object()) }
        let after = AllocationCounter.count()
        #expect(after - before >= 100, "100 objects counted as \(after - before) allocations")
        withExtendedLifetime(objects) {}
    }

    /// Allocations made by starting the first timer on `scheduler` (created beforehand), over the process.
    private static func allocationsOfFirstStart(on scheduler: SystemScheduler) throws -> UInt64 {
        let timer = try TempoTimer(.after(.seconds(3_600)), scheduler: scheduler) { _ in }
        let before = AllocationCounter.count()
        timer.start()
        let after = AllocationCounter.count()
        timer.cancel()
        usleep(200_000)  // let threads this started finish starting before anything else is counted
        return after - before
    }

    @Test func startingAClocksThreadsAheadMakesItsFirstTimerCheaper() throws {
        // Schedulers of their own, so that their clocks' threads are not started yet.
        let cold = try Self.allocationsOfFirstStart(on: SystemScheduler())
        let warmScheduler = SystemScheduler()
        warmScheduler.startThreads(for: [.monotonic])
        usleep(200_000)
        let warm = try Self.allocationsOfFirstStart(on: warmScheduler)
        print("first timer started on a new scheduler: \(cold) allocations; after startThreads: \(warm)")
        #expect(warm < cold, "startThreads(for:) left the first start at \(warm) allocations (\(cold) without)")
    }

    @Test(arguments: ["default", "immediate"])
    func aRepeatingTimerAllocatesNothingPerTick(delivery name: String) throws {
        let ticks = Ticks()
        let delivery: TimerDelivery = name == "immediate" ? .immediate : .privateQueue
        let timer = try TempoTimer(.every(.milliseconds(1), delivery: delivery)) { _ in ticks.add() }.start()
        defer { timer.cancel() }
        let perTick = try #require(Self.allocationsPerTick(ticks), "the timer did not tick 650 times in 60 s")
        print("TempoTimer (\(name) delivery): \(perTick) allocations per tick")
        #expect(perTick < Self.allowedPerTick, "\(perTick) allocations per tick with \(name) delivery")
    }

    /// The tick path with an instrument added (issue #27): events are values, the instrument list a snapshot.
    @Test func aLabeledTimerWithAnInstrumentAddedAllocatesNothingPerTick() throws {
        struct Quiet: TimerInstrument {}
        let registration = try TimerInstruments.add(Quiet())
        defer { TimerInstruments.remove(registration) }
        let ticks = Ticks()
        let timer = try TempoTimer(.every(.milliseconds(1)).labeled("allocations")) { _ in ticks.add() }.start()
        defer { timer.cancel() }
        let perTick = try #require(Self.allocationsPerTick(ticks), "the timer did not tick 650 times in 60 s")
        print("TempoTimer with an instrument added: \(perTick) allocations per tick")
        #expect(perTick < Self.allowedPerTick, "\(perTick) allocations per tick with an instrument added")
    }

    @Test func aSharedTickerAllocatesNothingPerTick() throws {
        let ticks = Ticks()
        let ticker = try SharedTicker(.every(.milliseconds(1)))
        let subscription = try ticker.subscribe(everyNth: 1) { _ in ticks.add() }
        defer { subscription.cancel() }
        let perTick = try #require(Self.allocationsPerTick(ticks), "the ticker did not tick 650 times in 60 s")
        print("SharedTicker: \(perTick) allocations per tick")
        #expect(perTick < Self.allowedPerTick, "\(perTick) allocations per tick")
    }
}
