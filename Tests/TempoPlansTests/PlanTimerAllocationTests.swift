import Foundation
import Tempo
import TempoTesting
import Testing

@testable import TempoPlans

/// A plan timer re-arms one internal timer for every date instead of building a timer per date, counted with the
/// `malloc` interposer that CI preloads (`.ci/alloc-counter.c`) on virtual time.
@Suite(
    .serialized,
    .enabled(if: PlanAllocationCounter.isAvailable, "needs LD_PRELOAD of the allocation counter (.ci/alloc-counter.c)")
)
struct PlanTimerAllocationTests {
    /// Allocations per date of an every-minute plan on a `VirtualClock`, over 500 dates after 50 of warm-up: the
    /// fewest of three windows (the counter is process-wide, so a window may catch the test runner's allocations).
    @Test func eachDateReArmsOneTimerInsteadOfCreatingOne() throws {
        let clock = VirtualClock()
        let recorder = FireRecorder()
        let timer = try PlanTimer(
            Plan.cron("* * * * *", in: Fixture.utc), scheduler: clock, handler: .fire { recorder.record($0) })
        timer.start()
        defer { timer.cancel() }
        clock.advance(by: .seconds(50 * 60))
        var windows: [Double] = []
        for _ in 0..<3 {
            let fired = timer.fireCount
            let before = PlanAllocationCounter.count()
            clock.advance(by: .seconds(500 * 60))
            let after = PlanAllocationCounter.count()
            #expect(timer.fireCount - fired == 500)
            windows.append(Double(after - before) / 500)
        }
        let perDate = try #require(windows.min())
        print("PlanTimer: \(perDate) allocations per date (windows \(windows))")
        // Measured on Linux (Swift 6.3.1): 27 per date with one re-armed timer, 31 when each date built a new
        // TempoTimer (its object, its handler's context and its scheduling); most of the 27 are the plan's next-date
        // computation (Foundation's Calendar) and the virtual clock.
        #expect(perDate < 29, "\(perDate) allocations per date")
    }
}

/// The process-wide allocation count of the interposer in `.ci/alloc-counter.c`, when it is preloaded.
enum PlanAllocationCounter {
    private typealias Read = @convention(c) () -> UInt64

    /// Whether the interposer is loaded.
    static var isAvailable: Bool { read != nil }

    private static let read: Read? = {
        guard let symbol = dlsym(nil, "tempo_alloc_count") else { return nil }
        return unsafeBitCast(symbol, to: Read.self)
    }()

    /// The number of `malloc`-family calls so far in this process.
    static func count() -> UInt64 { read?() ?? 0 }
}
