import Foundation
import Tempo
import TempoJobs
import TempoTesting
import Testing

/// A stable delay per job name (Jenkins' `H`) spreads jobs of one schedule over a window, the same on every start.
@Suite struct SpreadTests {
    /// The first planned date (seconds after the start) of each job, every hour with a spread of an hour.
    private func firstDates(_ names: [String]) async throws -> [String: Double] {
        let clock = VirtualClock()
        let dates = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            for name in names {
                try scheduler.register(name, .every(.hours(1)), options: JobOptions(spread: .hours(1))) {
                    context in
                    dates.append("\(context.name) \(context.plannedDate.timeIntervalSince(wallDate(0)))")
                }
            }
            try await run(scheduler, on: clock, for: .hours(2))
        }
        var first: [String: Double] = [:]
        for line in dates.all {
            let parts = line.split(separator: " ")
            let seconds = Double(parts[1])!
            first[String(parts[0])] = min(first[String(parts[0])] ?? .infinity, seconds)
        }
        return first
    }

    @Test func theSameNameGetsTheSameDelayOnEveryStartAndNamesSpreadOverTheWindow() async throws {
        let names = (0..<200).map { "hourly-\($0)" }
        let first = try await firstDates(names)
        let again = try await firstDates(names)
        #expect(first == again)
        #expect(first.count == 200)
        // Each delay lies in 0 ..< 1 h after the unspread date (3600 s).
        #expect(first.values.allSatisfy { $0 >= 3600 && $0 < 7200 })
        // 200 names over 6 ten-minute buckets: every bucket is used.
        let buckets = Set(first.values.map { Int(($0 - 3600) / 600) })
        #expect(buckets == Set(0..<6))
    }
}
