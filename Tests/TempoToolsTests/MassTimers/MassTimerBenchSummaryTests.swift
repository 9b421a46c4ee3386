import Testing

@testable import TempoTools

@Suite struct MassTimerBenchSummaryTests {
    typealias Result = MassTimerBench.Result

    func result(
        _ subject: MassTimerBench.Subject, count: Int = 100, arm: Double, cancel: Double, bytes: Double = 100
    ) -> Result {
        Result(subject: subject, count: count, armNanoseconds: arm, cancelNanoseconds: cancel, bytesPerTimer: bytes)
    }

    @Test func ratiosAreTakenWithinEachRoundAndTheirMedianIsReported() throws {
        // The peer's cost moves between rounds; Tempo's ratio to it is 0.4, 0.5 and 0.3 per round. Ratios of the
        // medians would give (400 + 100) / (1100 + 100) = 0.42 instead of the per-round median, 0.4.
        let rounds: [[Result]] = [
            [result(.tempoTimer, arm: 350, cancel: 50), result(.dispatchSource, arm: 900, cancel: 100)],
            [result(.dispatchSource, arm: 1100, cancel: 100), result(.tempoTimer, arm: 500, cancel: 100)],
            [result(.tempoTimer, arm: 400, cancel: 110), result(.dispatchSource, arm: 1600, cancel: 100)],
        ]
        let summaries = MassTimerBench.summarize(rounds)
        #expect(summaries.map(\.subject) == [.tempoTimer, .dispatchSource])
        let tempo = try #require(summaries.first)
        #expect(tempo.rounds == 3)
        #expect(tempo.armNanoseconds == 400)
        #expect(tempo.cancelNanoseconds == 100)
        let ratios = try #require(tempo.ratios)
        #expect(abs(ratios.armAndCancel - 0.4) < 1e-9)
        #expect(abs(ratios.armAndCancelRange.lowerBound - 0.3) < 1e-9)
        #expect(abs(ratios.armAndCancelRange.upperBound - 0.5) < 1e-9)
        #expect(abs(ratios.arm - 350.0 / 900) < 1e-9)
        #expect(ratios.bytes == 1)
        #expect(tempo.laterBytesPerTimer == 100)
        #expect(summaries.last?.ratios?.armAndCancel == 1)
    }

    @Test func bytesAreTheFirstRoundsAndLaterRoundsAreReportedApart() throws {
        // A later round that finds a table the first round grew still there holds fewer bytes per timer.
        func round(tempo: Double, dispatch: Double) -> [Result] {
            [
                result(.tempoTimer, arm: 1, cancel: 1, bytes: tempo),
                result(.dispatchSource, arm: 1, cancel: 1, bytes: dispatch),
            ]
        }
        let rounds = [
            round(tempo: 244, dispatch: 454), round(tempo: 208, dispatch: 450), round(tempo: 210, dispatch: 452),
        ]
        let tempo = try #require(MassTimerBench.summarize(rounds).first)
        #expect(tempo.bytesPerTimer == 244)
        #expect(tempo.laterBytesPerTimer == 209)
        #expect(tempo.ratios?.bytes == 244.0 / 454)
        let single = try #require(MassTimerBench.summarize([rounds[0]]).first)
        #expect(single.laterBytesPerTimer == nil)
    }

    @Test func countsAreSummarizedApartAndAMissingPeerGivesNoRatios() throws {
        let rounds: [[Result]] = [
            [
                result(.tempoTimer, count: 10, arm: 100, cancel: 10),
                result(.wheel, count: 10, arm: 50, cancel: 10),
                result(.dispatchSource, count: 1_000, arm: 400, cancel: 40),
                result(.tempoTimer, count: 1_000, arm: 200, cancel: 20),
            ]
        ]
        let summaries = MassTimerBench.summarize(rounds)
        #expect(summaries.count == 4)
        #expect(summaries[0].ratios == nil)
        #expect(summaries[1].ratios == nil)
        #expect(summaries[3].count == 1_000)
        #expect(summaries[3].ratios?.armAndCancel == 0.5)
    }

    @Test func oddRoundsRunTheSubjectsInReverse() {
        let subjects: [MassTimerBench.Subject] = [.tempoTimer, .wheel, .dispatchSource]
        #expect(MassTimerBench.order(of: subjects, inRound: 0) == subjects)
        #expect(MassTimerBench.order(of: subjects, inRound: 1) == [.dispatchSource, .wheel, .tempoTimer])
        #expect(MassTimerBench.order(of: subjects, inRound: 2) == subjects)
    }

    @Test func theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        #expect(MassTimerBench.median([]) == 0)
        #expect(MassTimerBench.median([3, 1, 2]) == 2)
        #expect(MassTimerBench.median([4, 1, 3, 2]) == 2.5)
    }
}
