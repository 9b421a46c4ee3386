import Benchmark
import CProcessStats
import Foundation
import Tempo
import TempoPlans
import TempoTesting

// Calendar plans: the cost of computing a plan's next date, and the memory a plan takes.
//
// - NextDate/<Subject>/<Plan>: one `nextDate(after:)` per operation (each iteration walks 1,000 dates forward
//   from 2026-01-01, so time and mallocs are per date). The peer, in the same run, is Foundation's
//   `Calendar.nextDate(after:matching:matchingPolicy:)` for the same "every day at 09:00 in Berlin".
// - BytesPerPlan/<What>/10k: glibc's `mallinfo2` bytes in use before and after building 10,000 of them (held in
//   an array whose own storage is subtracted), per plan.

let berlin = TimeZone(identifier: "Europe/Berlin")!
let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

var nextDateConfiguration: Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )
}

func registerNextDate(_ name: String, _ cron: String) {
    Benchmark("NextDate/TempoPlans/\(name)", configuration: nextDateConfiguration) { benchmark in
        let plan = try Plan.cron(cron, in: berlin)
        _ = try plan.nextDate(after: start)  // the zone's transitions are read once per process
        benchmark.startMeasurement()
        var date = start
        for _ in benchmark.scaledIterations {
            date = try plan.nextDate(after: date) ?? start
        }
        blackHole(date)
    }
}

func mallocBytesInUse() -> Int {
    Int(cprocessstats_malloc_bytes_in_use())
}

var bytesConfiguration: Benchmark.Configuration {
    .init(
        metrics: [.custom("bytesPerPlan", useScalingFactor: false)],
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(1),
        maxIterations: 3
    )
}

func registerBytes<Value>(
    _ name: String, _ make: @escaping (Int) throws -> Value, cleanup: @escaping ([Value]) -> Void = { _ in }
) {
    let count = 10_000
    Benchmark("BytesPerPlan/\(name)/10k", configuration: bytesConfiguration) { benchmark in
        _ = try make(0)  // warm caches (the zone table) outside the count
        var values: [Value] = []
        values.reserveCapacity(count)
        let before = mallocBytesInUse()
        for index in 0..<count { values.append(try make(index)) }
        let after = mallocBytesInUse()
        // The array's storage was reserved before `before`, so only the values' own allocations are counted.
        benchmark.measurement(.custom("bytesPerPlan", useScalingFactor: false), (after - before) / count)
        cleanup(values)
        blackHole(values)
    }
}

let benchmarks: @Sendable () -> Void = {
    registerNextDate("Daily9Berlin", "0 9 * * *")
    registerNextDate("Weekdays9Berlin", "0 9 * * MON-FRI")
    registerNextDate("Every5MinutesBerlin", "*/5 * * * *")
    registerNextDate("LastDayOfMonthBerlin", "30 18 L * *")
    registerNextDate("Seconds6FieldBerlin", "*/10 * 9-17 * * MON-FRI")
    registerNextDate("LeapDayBerlin", "0 0 29 2 *")

    Benchmark("NextDate/Foundation/Daily9Berlin", configuration: nextDateConfiguration) { benchmark in
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let components = DateComponents(hour: 9, minute: 0, second: 0)
        var date = start
        for _ in benchmark.scaledIterations {
            date = calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime)!
        }
        blackHole(date)
    }

    registerBytes("CronPlan") { index in try Plan.cron("\(index % 60) 9 * * MON-FRI", in: berlin) }
    registerBytes("FoundationDateComponents") { index in DateComponents(hour: 9, minute: index % 60, weekday: 2) }
    let clock = VirtualClock()
    registerBytes(
        "RunningPlanTimer",
        { index in
            let timer = try PlanTimer(
                Plan.cron("\(index % 60) 9 * * MON-FRI", in: berlin), scheduler: clock, handler: .fire { _ in })
            timer.start()
            return timer
        }, cleanup: { timers in for timer in timers { timer.cancel() } })
    registerBytes(
        "RunningTempoTimer",
        { _ in
            let timer = try TempoTimer(.every(.seconds(86_400), clock: .wall), scheduler: clock) { _ in }
            timer.start()
            return timer
        }, cleanup: { timers in for timer in timers { timer.cancel() } })
}
