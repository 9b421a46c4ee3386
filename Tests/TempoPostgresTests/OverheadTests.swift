#if Postgres
import Foundation
import Logging
import TempoPostgres
import Testing

extension PostgresTests {
    /// Prints what a claim costs per run on the local server (asserts no time: the machine may be loaded).
    @Suite struct OverheadTests {
        @Test func claimAndReleaseOfManyDatesAllSucceedAndTheirTimesArePrinted() async throws {
            try await withDatabase { _, client in
                let coordinator = try PostgresJobCoordinator(client: client, replica: "a")
                let logger = Logger(label: "test")
                let clock = ContinuousClock()
                let count = Int(ProcessInfo.processInfo.environment["TEMPO_PG_CLAIMS"] ?? "") ?? 300
                var times: [Duration] = []
                for index in 0..<count {
                    let date = Date(timeIntervalSince1970: 1_800_000_000 + Double(index))
                    let start = clock.now
                    let claim = try #require(
                        try await step("claiming date \(index)") {
                            try await coordinator.claim(job: "bench", plannedDate: date, logger: logger)
                        })
                    try await step("releasing date \(index)") { await claim.release(succeeded: true) }
                    times.append(start.duration(to: clock.now))
                }
                times.sort()
                let median = times[times.count / 2]
                let p99 = times[min(times.count - 1, times.count * 99 / 100)]
                print("claim + release per run over \(count) runs: median \(median), p99 \(p99)")
                #expect(times.count == count)
            }
        }
    }
}
#endif
