import Foundation
import Tempo
import TempoLocks
import TempoTesting
import Testing

@testable import TempoPlans

/// A zone-rules source whose rules a test changes while a plan waits.
final class ChangingZoneRules: ZoneRulesSource {
    private let state: TempoMutex<(version: Int, zone: TimeZone)>

    init(_ zone: TimeZone) {
        state = TempoMutex((0, zone))
    }

    /// From now on the zone's rules are those of `zone`.
    func change(to zone: TimeZone) {
        state.withLock { $0 = ($0.version + 1, zone) }
    }

    func watches(_ zone: TimeZone) -> Bool { true }
    func fingerprint(of zone: TimeZone) -> String { "version \(state.withLock { $0.version })" }
    func resolve(_ zone: TimeZone) -> TimeZone { state.withLock { $0.zone } }
}

/// Running plans after a change of their zone's rules, on virtual time (the wall clock starts at 2026-01-01
/// 00:00 UTC; Berlin is then at +01:00, so 09:00 in Berlin is 08:00 UTC).
@Suite struct ZoneChangeTests {
    let clock = VirtualClock()
    let recorder = FireRecorder()
    let source = ChangingZoneRules(Fixture.berlin)
    static let plusTwo = TimeZone(secondsFromGMT: 7200)!
    static let utcRules = TimeZone(secondsFromGMT: 0)!

    private func dailyNine() throws -> Plan {
        try Plan.cron("0 9 * * *", in: Fixture.berlin).usingZoneRules(source)
    }

    private func timer(_ plan: Plan) throws -> PlanTimer {
        let recorder = recorder
        return try PlanTimer(plan, scheduler: clock, handler: .fire { recorder.record($0) })
    }

    @Test func aChangeWhileWaitingMovesThePendingDateEarlierAndItFiresOnce() throws {
        let timer = try timer(dailyNine())
        timer.start()
        #expect(timer.nextDate == Fixture.date("2026-01-01T08:00:00Z"))
        clock.advance(by: .seconds(5 * 3600))
        source.change(to: Self.plusTwo)  // 09:00 local is now 07:00 UTC
        clock.advance(by: .seconds(2 * 3600) - .nanoseconds(1))
        #expect(recorder.all.isEmpty)
        #expect(timer.nextDate == Fixture.date("2026-01-01T07:00:00Z"))
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T07:00:00Z"])
        #expect(recorder.all.first?.lateness == .zero)
        clock.advance(by: .seconds(2 * 3600))  // through 08:00, the date under the old rules
        #expect(recorder.planned == ["2026-01-01T07:00:00Z"])
        #expect(timer.nextDate == Fixture.date("2026-01-02T07:00:00Z"))
        timer.cancel()
    }

    @Test func aChangeWhileWaitingMovesThePendingDateLaterAndNothingFiresEarly() throws {
        let timer = try timer(dailyNine())
        timer.start()
        clock.advance(by: .seconds(5 * 3600))
        source.change(to: Self.utcRules)  // 09:00 local is now 09:00 UTC
        clock.advance(by: .seconds(4 * 3600) - .nanoseconds(1))  // through 08:00, to 08:59:59.999999999
        #expect(recorder.all.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        #expect(recorder.all.first?.lateness == .zero)
        timer.cancel()
    }

    @Test func aChangeIsNoticedWithinTheZoneCheckInterval() throws {
        let timer = try timer(dailyNine())
        timer.start()
        clock.advance(by: .seconds(3600))
        source.change(to: Self.plusTwo)
        #expect(timer.nextDate == Fixture.date("2026-01-01T08:00:00Z"))  // not yet noticed
        clock.advance(by: PlanTimer.zoneCheckInterval)
        #expect(timer.nextDate == Fixture.date("2026-01-01T07:00:00Z"))
        timer.cancel()
    }

    @Test func aLocalTimeServedUnderTheOldRulesIsNotServedAgain() throws {
        let timer = try timer(dailyNine())
        timer.start()
        clock.advance(by: .seconds(8 * 3600))
        #expect(recorder.planned == ["2026-01-01T08:00:00Z"])
        clock.advance(by: .seconds(600))
        source.change(to: Self.utcRules)  // 09:00 local is now 09:00 UTC, still ahead
        clock.advance(by: .seconds(86_400 + 3600) - .seconds(600) - .nanoseconds(1))  // to 2026-01-02T08:59:59.9…
        #expect(recorder.planned == ["2026-01-01T08:00:00Z"])
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T08:00:00Z", "2026-01-02T09:00:00Z"])
        timer.cancel()
    }

    @Test func aChangeThatMovesTheDateIntoThePastFiresItLateOnce() throws {
        let timer = try timer(dailyNine())
        timer.start()
        clock.advance(by: .seconds(7 * 3600 + 1800))  // 07:30 UTC
        source.change(to: Self.plusTwo)  // 09:00 local was 07:00 UTC, already past
        clock.advance(by: PlanTimer.zoneCheckInterval)
        #expect(recorder.planned == ["2026-01-01T07:00:00Z"])
        #expect(recorder.all.first.map { $0.lateness >= .seconds(1800) } == true)
        clock.advance(by: .seconds(3600))
        #expect(recorder.all.count == 1)
        timer.cancel()
    }

    @Test func aRegistryEntryFollowsAChange() throws {
        let registry = PlanRegistry<String>(scheduler: clock)
        let recorder = recorder
        try registry.schedule("report", dailyNine(), handler: .fire { recorder.record($0) })
        clock.advance(by: .seconds(5 * 3600))
        source.change(to: Self.plusTwo)
        clock.advance(by: .seconds(2 * 3600) - .nanoseconds(1))
        #expect(recorder.all.isEmpty)
        #expect(registry.nextDate(of: "report") == Fixture.date("2026-01-01T07:00:00Z"))
        clock.advance(by: .nanoseconds(1))
        clock.advance(by: .seconds(2 * 3600))
        #expect(recorder.planned == ["2026-01-01T07:00:00Z"])
        registry.cancelAll()
    }

    @Test func anAsyncSequenceFollowsAChange() async throws {
        let plan = try dailyNine()
        let received = FireRecorder()
        let clock = clock
        let loop = Task {
            for await fire in try plan.fires(scheduler: clock) {
                received.record(fire)
                break
            }
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .seconds(5 * 3600))
        source.change(to: Self.plusTwo)
        // Each check of the zone is a sleep of at most a minute; step through them to just before 07:00.
        for _ in 0..<(2 * 60 - 1) {
            try #require(await clock.waitForPending())
            clock.advance(by: PlanTimer.zoneCheckInterval)
        }
        try #require(await clock.waitForPending())
        clock.advance(by: PlanTimer.zoneCheckInterval - .nanoseconds(1))
        #expect(received.all.isEmpty)
        try #require(await clock.waitForPending())
        clock.advance(by: .nanoseconds(1))
        #expect(await waitUntil { received.all.count == 1 })
        loop.cancel()
        try await loop.value
        #expect(received.planned == ["2026-01-01T07:00:00Z"])
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        let start = ContinuousClock.now
        while !condition() {
            if start.duration(to: .now) > .seconds(10) { return false }
            await Task.yield()
        }
        return true
    }

    @Test func plansInNamedSystemZonesAreNotWatched() throws {
        let plan = try Plan.cron("0 9 * * *", in: Fixture.berlin)
        #expect(plan.node.watchedZones.isEmpty)
        let local = try Plan.cron("0 9 * * *", in: .autoupdatingCurrent)
        #expect(local.node.watchedZones.count == 1)
        let timer = try timer(plan)
        timer.start()
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(8 * 3600) - .nanoseconds(1))  // no wakeups to check the zone on the way
        #expect(recorder.all.isEmpty)
        timer.cancel()
    }
}

/// The local-zone probe on files of the test's own (no root needed).
@Suite struct LocalZoneProbeTests {
    @Test func theFingerprintChangesWhenTheLinkIsRepointedOrTheVariableSet() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tempo-zone-probe-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let berlin = directory.appendingPathComponent("Berlin")
        let tokyo = directory.appendingPathComponent("Tokyo")
        try Data("berlin rules".utf8).write(to: berlin)
        try Data("tokyo rules".utf8).write(to: tokyo)
        let link = directory.appendingPathComponent("localtime").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: berlin.path)
        let unset: (String) -> String? = { _ in nil }

        let first = LocalZoneProbe.fingerprint(localtime: link, environment: unset)
        #expect(LocalZoneProbe.fingerprint(localtime: link, environment: unset) == first)
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tokyo.path)
        let repointed = LocalZoneProbe.fingerprint(localtime: link, environment: unset)
        #expect(repointed != first)
        try Data("tokyo rules, updated".utf8).write(to: tokyo)
        let updated = LocalZoneProbe.fingerprint(localtime: link, environment: unset)
        #expect(updated != repointed)
        let withTZ = LocalZoneProbe.fingerprint(localtime: link) { $0 == "TZ" ? "Asia/Tokyo" : nil }
        #expect(withTZ != updated)
    }
}
