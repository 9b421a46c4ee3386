import Tempo
import Testing

@testable import TempoTools

@Suite struct LatencyRecorderTests {
    static let start = TimerInstant(offset: .seconds(100))

    @Test func latenessIsMeasuredFromTheSlotTheBackendWasWaitingFor() {
        let recorder = LatencyRecorder(start: Self.start, period: .milliseconds(1), slots: 10)
        recorder.record(slot: 1, now: Self.start + .milliseconds(1) + .microseconds(40))
        // Slot 2 ran 3.5 ms late and slots 3...5 were overdue too: lateness counts from slot 2.
        recorder.record(slot: 5, now: Self.start + .milliseconds(5) + .microseconds(500))
        let samples = recorder.samples(backend: .floor)
        #expect(samples.latenessNanoseconds == [40_000, 3_500_000])
        #expect(samples.missed == 3)
        #expect(samples.drift == .microseconds(500))
    }

    @Test func theLastSlotFinishesTheMeasurementAndLaterTicksAreIgnored() {
        let recorder = LatencyRecorder(start: Self.start, period: .milliseconds(1), slots: 2)
        #expect(!recorder.record(slot: 1, now: Self.start + .milliseconds(1)))
        #expect(recorder.record(slot: 2, now: Self.start + .milliseconds(2) + .nanoseconds(1)))
        #expect(!recorder.record(slot: 3, now: Self.start + .milliseconds(3)))
        #expect(!recorder.record(slot: 1, now: Self.start + .milliseconds(3)))
        #expect(recorder.samples(backend: .floor).latenessNanoseconds == [0, 1])
        #expect(recorder.samples(backend: .floor).early == 0)
    }

    @Test func aTickBeforeItsDeadlineIsCountedAsEarly() {
        let recorder = LatencyRecorder(start: Self.start, period: .milliseconds(1), slots: 2)
        recorder.record(slot: 1, now: Self.start + .milliseconds(1) - .nanoseconds(1))
        let samples = recorder.samples(backend: .floor)
        #expect(samples.early == 1)
        #expect(samples.latenessNanoseconds == [0])
    }

    @Test func aSourceReportingSeveralFiresAdvancesBySoManySlots() {
        let recorder = LatencyRecorder(start: Self.start, period: .milliseconds(1), slots: 10)
        recorder.record(fires: 1, now: Self.start + .milliseconds(1) + .microseconds(10))
        recorder.record(fires: 3, now: Self.start + .milliseconds(4) + .microseconds(20))
        let samples = recorder.samples(backend: .dispatchSource)
        #expect(samples.missed == 2)
        #expect(samples.latenessNanoseconds == [10_000, 2_020_000])
        #expect(recorder.slot(at: Self.start + .milliseconds(4) + .microseconds(20)) == 4)
    }

    @Test func interleavedRoundsMergeIntoOneSamplePerBackendInTheGivenOrder() throws {
        let samples = try LatencyProbe.measure(
            [.floor, .tempoPrecise], every: .milliseconds(2), for: .milliseconds(40), rounds: 2)
        #expect(samples.map(\.backend) == [.floor, .tempoPrecise])
        for sample in samples {
            #expect(sample.slots == 20)
            #expect(sample.ticks + sample.missed == 20)
        }
    }
}
