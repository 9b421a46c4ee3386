import Foundation
import Testing

@testable import TempoPlans

/// `nextDates` of random cron expressions against an independent evaluator that walks real time minute by minute
/// in the zone (reading offsets from Foundation's `TimeZone` and dates from Foundation's `Calendar`) and tests each
/// local minute against the expression's value sets.
///
/// Seeded: the seed is printed; replay with `TEMPO_PLANS_SEED=<seed>`. `TEMPO_PLANS_CASES` sets the number of
/// cases (default 5,000).
@Suite struct BruteForceTests {
    @Test func nextDatesAgreeWithAMinuteWalkingEvaluator() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["TEMPO_PLANS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let cases = environment["TEMPO_PLANS_CASES"].flatMap(Int.init) ?? 5_000
        print("BruteForceTests seed \(seed) (replay with TEMPO_PLANS_SEED=\(seed)), \(cases) cases")
        var random = SplitMix64(seed: seed)
        let zones = [
            "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "America/Santiago",
            "America/St_Johns", "Asia/Kolkata", "UTC",
        ].map { TimeZone(identifier: $0)! }
        var compared = 0
        var neverFiring = 0
        var failures = 0
        for index in 0..<cases {
            let spec = CronSpec.random(&random)
            let zone = zones[Int(random.next() % UInt64(zones.count))]
            let policy = randomPolicy(&random)
            let start = randomStart(&random, zone: zone)
            let plan: Plan
            switch Result(catching: { () throws(PlanError) -> Plan in
                try Plan.cron(spec.text, in: zone, localTimes: policy)
            }) {
            case .success(let parsed):
                plan = parsed
            case .failure(let error):
                #expect(error.code == .neverFires, "case \(index): \(spec.text): \(error)")
                #expect(!spec.canFire, "case \(index): \(spec.text) was rejected as never firing: \(error)")
                neverFiring += 1
                continue
            }
            #expect(spec.canFire, "case \(index): \(spec.text) cannot fire but was accepted")
            let horizon = start + 6 * 366 * 86_400
            let expected = BruteForce(spec: spec, zone: zone, policy: policy).next(
                after: start, count: 3, until: horizon)
            let dates: [Date] = try plan.nextDates(after: Date(timeIntervalSince1970: Double(start)), count: 3)
            let actual: [Int64] = dates.map { Int64($0.timeIntervalSince1970) }.filter { $0 <= horizon }
            compared += 1
            if actual != expected {
                failures += 1
                if failures <= 5 {
                    Issue.record(
                        """
                        case \(index) (seed \(seed)): "\(spec.text)" in \(zone.identifier), \(policy), after \
                        \(Fixture.text(Date(timeIntervalSince1970: Double(start)), in: zone))
                          plan:        \(actual.map { Fixture.text(Date(timeIntervalSince1970: Double($0)), in: zone) })
                          brute force: \(expected.map { Fixture.text(Date(timeIntervalSince1970: Double($0)), in: zone) })
                        """)
                }
            }
        }
        print("BruteForceTests: \(compared) compared, \(neverFiring) rejected as never firing, \(failures) differed")
        #expect(compared > cases * 9 / 10)
    }

    private func randomPolicy(_ random: inout SplitMix64) -> LocalTimePolicy {
        guard random.next() % 10 < 3 else { return .cron }
        let skipped: [LocalTimePolicy.SkippedTime] = [.cron, .runAfter, .skip]
        let repeated: [LocalTimePolicy.RepeatedTime] = [.cron, .once, .both]
        return LocalTimePolicy(
            skipped: skipped[Int(random.next() % 3)], repeated: repeated[Int(random.next() % 3)])
    }

    /// Half the starts are anywhere in 2000-2040; half are within three hours of an offset change.
    private func randomStart(_ random: inout SplitMix64, zone: TimeZone) -> Int64 {
        let anywhere = Int64(946_684_800 + Int64(random.next() % (40 * 365 * 86_400)))
        guard random.next() % 2 == 0 else { return anywhere }
        let year = zone.identifier == "Pacific/Apia" && random.next() % 2 == 0 ? 2011 : 2005 + Int(random.next() % 30)
        var cursor = Date(timeIntervalSince1970: Double(CivilTime.days(year: Int64(year), month: 1, day: 1) * 86_400))
        for _ in 0...(random.next() % 3) {
            guard let next = zone.nextDaylightSavingTimeTransition(after: cursor) else { return anywhere }
            cursor = next
        }
        return Int64(cursor.timeIntervalSince1970) + Int64(random.next() % (6 * 3600)) - 3 * 3600
    }
}

/// A random cron expression with the value sets it stands for, computed independently of the parser.
struct CronSpec {
    var text: String
    var minutes: Set<Int>
    var hours: Set<Int>
    var days: Set<Int>
    var lastDay: Bool
    var months: Set<Int>
    var weekdays: Set<Int>
    var dayOfMonthHasStar: Bool
    var dayOfWeekHasStar: Bool
    var isWildcard: Bool

    static func random(_ random: inout SplitMix64) -> CronSpec {
        let minute = field(&random, range: 0...59, starChance: 2)
        let hour = field(&random, range: 0...23, starChance: 3)
        var dayOfMonth = field(&random, range: 1...31, starChance: 6)
        var last = false
        if random.next() % 12 == 0 {
            dayOfMonth = (dayOfMonth.text == "*" ? "L" : dayOfMonth.text + ",L", dayOfMonth.values)
            if dayOfMonth.text == "L" { dayOfMonth.values = [] }
            last = true
        }
        let month = field(&random, range: 1...12, starChance: 7, names: monthNames)
        let weekday = field(&random, range: 0...7, starChance: 6, names: weekdayNames)
        let text = [minute.text, hour.text, dayOfMonth.text, month.text, weekday.text].joined(separator: " ")
        return CronSpec(
            text: text, minutes: minute.values, hours: hour.values, days: dayOfMonth.values, lastDay: last,
            months: month.values, weekdays: Set(weekday.values.map { $0 % 7 }),
            dayOfMonthHasStar: dayOfMonth.text.contains("*"), dayOfWeekHasStar: weekday.text.contains("*"),
            isWildcard: minute.text.hasPrefix("*") || hour.text.hasPrefix("*"))
    }

    static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    static let weekdayNames = ["sun", "Mon", "TUE", "wed", "Thu", "fri", "SAT"]

    /// One field: `*`, `*/n`, a value, a range, a stepped range or a list, out of 10 with `starChance` for `*`.
    private static func field(
        _ random: inout SplitMix64, range: ClosedRange<Int>, starChance: UInt64, names: [String] = []
    ) -> (text: String, values: Set<Int>) {
        let all = range.upperBound == 7 ? 0...6 : range
        var draws: [UInt64] = (0..<12).map { _ in random.next() }
        func draw() -> UInt64 { draws.removeLast() }
        func value() -> Int { range.lowerBound + Int(draw() % UInt64(range.count)) }
        func name(_ v: Int) -> String {
            guard !names.isEmpty, v - range.lowerBound < names.count, draw() % 3 == 0 else { return "\(v)" }
            return names[v - range.lowerBound]
        }
        if draw() % 10 < starChance { return ("*", Set(all)) }
        switch draw() % 5 {
        case 0:
            let step = 1 + Int(draw() % UInt64(min(range.count, 20)))
            return ("*/\(step)", Set(stride(from: all.lowerBound, through: all.upperBound, by: step)))
        case 1:
            let v = value()
            return (name(v), [v])
        case 2, 3:
            var (a, b) = (value(), value())
            if a > b { swap(&a, &b) }
            let step = draw() % 2 == 0 ? 1 : 1 + Int(draw() % 6)
            let text = "\(name(a))-\(name(b))" + (step > 1 ? "/\(step)" : "")
            return (text, Set(stride(from: a, through: b, by: step)))
        default:
            let values = (0..<2).map { _ in value() }
            return (values.map { name($0) }.joined(separator: ","), Set(values))
        }
    }

    /// Whether some date can match: the day fields match either (when neither has a star) or both.
    var canFire: Bool {
        let either = !dayOfMonthHasStar && !dayOfWeekHasStar
        if either && !weekdays.isEmpty { return true }
        if dayOfMonthHasStar { return !weekdays.isEmpty }
        for month in months {
            let longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            if lastDay || days.contains(where: { $0 <= longest }) { return true }
        }
        return false
    }
}

/// The independent evaluator: walks real minutes and applies the local-time rules as the article's table says.
struct BruteForce {
    let spec: CronSpec
    let zone: TimeZone
    let runAfterGap: Bool
    let runBoth: Bool
    private let calendar: Calendar

    init(spec: CronSpec, zone: TimeZone, policy: LocalTimePolicy) {
        self.spec = spec
        self.zone = zone
        switch policy.skipped.kind {
        case .cron: runAfterGap = !spec.isWildcard
        case .runAfter: runAfterGap = true
        case .skip: runAfterGap = false
        }
        switch policy.repeated.kind {
        case .cron: runBoth = spec.isWildcard
        case .once: runBoth = false
        case .both: runBoth = true
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        self.calendar = calendar
    }

    private func offset(_ instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// Whether the local date of `local` (seconds since 1970 of local time) matches the day and month fields.
    private func dayMatches(_ local: Int64) -> Bool {
        let date = Date(timeIntervalSince1970: Double(local))
        let parts = calendar.dateComponents([.month, .day, .weekday], from: date)
        guard spec.months.contains(parts.month!) else { return false }
        let length = calendar.range(of: .day, in: .month, for: date)!.count
        let dayOfMonth = spec.days.contains(parts.day!) || (spec.lastDay && parts.day! == length)
        let weekday = spec.weekdays.contains(parts.weekday! - 1)
        if spec.dayOfMonthHasStar || spec.dayOfWeekHasStar { return dayOfMonth && weekday }
        return dayOfMonth || weekday
    }

    private func matches(_ local: Int64) -> Bool {
        let minute = Int((local / 60) % 60)
        let hour = Int((local / 3600) % 24)
        return spec.minutes.contains(minute) && spec.hours.contains(hour) && dayMatches(local)
    }

    func next(after start: Int64, count: Int, until end: Int64) -> [Int64] {
        var found: [Int64] = []
        // Warm up three hours before the start, so that local minutes already seen are known as repeats.
        var instant = (start / 60) * 60 - 3 * 3600
        var previousLocal = instant - 60 + offset(instant - 60)
        var highestLocal = previousLocal
        while found.count < count && instant <= end {
            let currentOffset = offset(instant)
            let local = instant + currentOffset
            var fires = false
            if local > previousLocal + 60 && runAfterGap {
                var skipped = previousLocal + 60
                while skipped < local && !fires {
                    fires = matches(skipped)
                    skipped += 60
                }
            }
            if local <= highestLocal {
                fires = fires || (runBoth && matches(local))
            } else {
                fires = fires || matches(local)
            }
            if fires && instant > start { found.append(instant) }
            highestLocal = max(highestLocal, local)
            previousLocal = local
            // Skip a whole local day or hour that cannot match, when the offset does not change on the way.
            var step: Int64 = 60
            if instant > start {
                if !dayMatches(local) {
                    step = 86_400 - ((local % 86_400) + 86_400) % 86_400
                } else if !spec.hours.contains(Int((local / 3600) % 24)) {
                    step = 3600 - local % 3600
                }
                if step > 60 && offset(instant + step) != currentOffset || offset(instant + step - 60) != currentOffset
                {
                    step = 60
                }
                if step > 60 {
                    previousLocal = local + step - 60
                    highestLocal = max(highestLocal, previousLocal)
                }
            }
            instant += step
        }
        return found
    }
}

/// A small seeded generator (SplitMix64), so failures replay from the printed seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
