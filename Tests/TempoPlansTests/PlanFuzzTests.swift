import Foundation
import Testing

@testable import TempoPlans

/// Seeded fuzzing of plans (issue #26): plan and cron text with digits that are not ASCII, nested composition of up to
/// 10 parts, and feed-back loops of `nextDate(after:)` over sub-second grids.
///
/// A case passes when nothing traps, every date is strictly later than the instant asked about and than the date
/// before it, and no search takes more than ``PlanNode/stepLimit`` steps. Each test prints its seed;
/// `TEMPO_SEED=<seed>` replays it and `TEMPO_FUZZ_CASES` sets the number of cases (150 by default; CI's
/// AddressSanitizer run of the suites matching `FuzzTests` uses more).
@Suite struct PlanFuzzTests {
    private static let cases: Int = {
        let text = ProcessInfo.processInfo.environment["TEMPO_FUZZ_CASES"]
        return max(1, text.flatMap(Int.init) ?? 150)
    }()

    private static func random(_ name: String) -> SplitMix64 {
        let seed = ProcessInfo.processInfo.environment["TEMPO_SEED"].flatMap(UInt64.init) ?? .random(in: 1 ... .max)
        print("PlanFuzzTests.\(name) seed \(seed), \(cases) cases; replay with TEMPO_SEED=\(seed)")
        return SplitMix64(seed: seed)
    }

    /// Digits that `Character.isNumber` accepts and `Int` does not parse.
    private static let digits: [Character] = ["٣", "２", "½", "²", "Ⅻ", "৯", "߃", "𝟗", "٠", "¾"]

    private static let texts = [
        "every day at 9:30", "every weekday at 09:00 and 17:30", "on day 1, 15 at 08:00 in jan, jul",
        "on the 3rd at 9am", "every mon, fri at 10:30:15", "every 2h", "every 1h30m", "0 9 * * 1-5", "*/15 * * * *",
        "0 0 1 1 *", "30 2 * * 0", "5 4 3 2 1",
    ]

    @Test func textWithAnyDigitNeverTrapsAndNamesNonASCIIDigits() {
        var random = Self.random("text")
        for index in 0..<Self.cases {
            var text = Array(Self.texts[Int(random.next() % UInt64(Self.texts.count))])
            for position in text.indices where text[position].isASCII && text[position].isNumber {
                if random.next() % 3 == 0 {
                    text[position] = Self.digits[Int(random.next() % UInt64(Self.digits.count))]
                }
            }
            let candidate = String(text)
            // The texts are valid, so a text with a replaced digit fails first on the word or field holding it.
            let nonASCII = candidate.contains { $0.isNumber && !$0.isASCII }
            do {
                _ = try Plan.parse(candidate, in: Fixture.utc, anchor: Date(timeIntervalSince1970: 0))
                #expect(!nonASCII, "case \(index): \"\(candidate)\" was accepted")
            } catch {
                if nonASCII {
                    #expect(error.message.contains("not an ASCII number"), "case \(index): \(error)")
                }
            }
        }
    }

    @Test func nestedPlansAnswerStrictlyLaterDatesWithinOneBudget() throws {
        var random = Self.random("nested")
        var exhausted = 0
        defer { print("PlanFuzzTests.nested: \(exhausted) of \(Self.cases) searches ran out of steps") }
        for index in 0..<Self.cases {
            var parts = 0
            let plan = try Self.plan(&random, depth: 3, parts: &parts)
            #expect(parts <= 10)
            let start = Date(timeIntervalSince1970: 946_684_800 + Double(random.next() % 1_262_304_000) / 1.0e0)
                .addingTimeInterval(Double(random.next() % 1_000_000_000) / 1e9)
            var budget = StepBudget()
            _ = plan.node.next(after: try PlanInstant.nanoseconds(start), budget: &budget)
            #expect(budget.used <= PlanNode.stepLimit, "case \(index): \(plan)")
            // An exhausted search costs a full budget per call; one per case is enough to cover it.
            guard !budget.isExhausted else {
                exhausted += 1
                #expect(try plan.nextDate(after: start) == nil)
                continue
            }
            let dates = try plan.nextDates(after: start, count: 4)
            #expect(
                zip([start] + dates, dates).allSatisfy { $0 < $1 }, "case \(index): \(plan) after \(start): \(dates)")
            var cursor = start
            for _ in 0..<6 {
                guard let next = try plan.nextDate(after: cursor) else { break }
                #expect(next > cursor, "case \(index): \(plan) returned \(next) after \(cursor)")
                guard next > cursor else { break }
                cursor = next
            }
        }
    }

    @Test func feedBackLoopsOverSubSecondGridsAlwaysMoveOn() throws {
        var random = Self.random("feedback")
        for index in 0..<Self.cases {
            let step = Int64(1 + random.next() % 999_999_999)
            let anchor = Date(timeIntervalSince1970: Double(random.next() % 9_000_000_000) - 2_000_000_000)
                .addingTimeInterval(Double(random.next() % 1_000_000) / 1e6)
            let plan = try Plan.every(.nanoseconds(step), anchor: anchor)
            var cursor = anchor
            for _ in 0..<200 {
                guard let next = try plan.nextDate(after: cursor) else { break }
                guard next > cursor else {
                    Issue.record("case \(index): every \(step) ns from \(anchor): \(next) is not after \(cursor)")
                    break
                }
                cursor = next
            }
        }
    }

    /// A random plan of at most 10 parts (leaves), nested up to `depth` levels.
    private static func plan(_ random: inout SplitMix64, depth: Int, parts: inout Int) throws -> Plan {
        guard depth > 0, parts < 8, random.next() % 3 != 0 else {
            parts += 1
            return try leaf(&random)
        }
        let left = try plan(&random, depth: depth - 1, parts: &parts)
        switch random.next() % 5 {
        case 0:
            return left.union(try plan(&random, depth: depth - 1, parts: &parts))
        case 1, 2:
            // Mostly with a superset of `left` (the plans meet, so leapfrogging runs through every level), sometimes
            // with any plan (which may never meet, and then ends the search on the step budget).
            let right = try plan(&random, depth: depth - 1, parts: &parts)
            return left.intersection(random.next() % 4 == 0 ? right : right.union(left))
        case 3:
            return try left.offset(by: .seconds(Int64(random.next() % 7_200)) - .seconds(3_600))
        default:
            return try left.starting(
                at: Date(timeIntervalSince1970: 1_000_000_000 + Double(random.next() % 1_000_000_000)))
        }
    }

    private static func leaf(_ random: inout SplitMix64) throws -> Plan {
        let crons = ["*/5 * * * *", "0 * * * *", "*/15 9-17 * * 1-5", "0 9 * * *", "30 * * * * *", "0 0 1 * *"]
        switch random.next() % 4 {
        case 0:
            let seconds = [1, 60, 300, 3_600, 86_400][Int(random.next() % 5)]
            return try Plan.every(.seconds(seconds), anchor: Date(timeIntervalSince1970: 0))
        case 1:
            return try Plan.every(
                .nanoseconds(Int64(1 + random.next() % 999_999_999)),
                anchor: Date(timeIntervalSince1970: Double(random.next() % 2_000_000_000)))
        default:
            return try Plan.cron(crons[Int(random.next() % UInt64(crons.count))], in: Fixture.berlin)
        }
    }
}
