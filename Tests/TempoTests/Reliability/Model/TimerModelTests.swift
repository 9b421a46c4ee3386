import Tempo
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random operation sequences on virtual time, checked step by step against ``TimerModel``.
///
/// 8 shards × 12,500 sequences = 100,000 sequences per run, each of 1–40 operations. A run's base seed is
/// random and printed; set `TEMPO_MODEL_SEED` to replay a run. A failing sequence is shrunk (operations
/// removed while it still fails) and reported with its seed, setup and remaining operations.
@Suite struct TimerModelTests {
    static let shards = 8
    static let sequencesPerShard: Int = {
        if let text = getenv("TEMPO_MODEL_SEQUENCES"), let count = Int(String(cString: text)) { return count / shards }
        return 12_500
    }()

    static let baseSeed: UInt64 = {
        if let text = getenv("TEMPO_MODEL_SEED"), let seed = UInt64(String(cString: text), radix: 16) {
            return seed
        }
        return SeededGenerator.seed()
    }()

    @Test(arguments: 0..<shards)
    func theTimerAgreesWithTheReferenceModelOnRandomSequences(shard: Int) {
        var seeds = SeededGenerator(seed: Self.baseSeed ^ (UInt64(shard) &* 0x9E37_79B9_7F4A_7C15))
        var operations = 0
        var events = 0
        for sequence in 0..<Self.sequencesPerShard {
            let seed = seeds.next()
            var random = SeededGenerator(seed: seed)
            let setup = TimerSequenceGenerator.setup(&random)
            let length = random.int(1...40)
            let startsAtOnce = random.chance(80)
            let outcome = TimerModelRunner.run(setup) { model, step in
                guard step < length else { return nil }
                return step == 0 && startsAtOnce ? .start : TimerSequenceGenerator.operation(model, &random)
            }
            operations += outcome.operations.count
            events += outcome.ticks
            if let failure = outcome.failure {
                let shrunk = TimerModelRunner.shrink(setup, outcome.operations)
                Issue.record(
                    """
                    TempoTimer disagrees with the model: \(shrunk.failure ?? failure)
                    base seed \(String(Self.baseSeed, radix: 16)) (TEMPO_MODEL_SEED), shard \(shard), \
                    sequence \(sequence), sequence seed \(String(seed, radix: 16))
                    setup: \(setup)
                    operations (shrunk from \(outcome.operations.count)): \
                    \(shrunk.operations.map(\.description).joined(separator: ", "))
                    """
                )
                return
            }
        }
        print(
            "model shard \(shard): \(Self.sequencesPerShard) sequences, \(operations) operations, "
                + "\(events) events compared, base seed \(String(Self.baseSeed, radix: 16))"
        )
    }

    @Test func theRunnerReportsAndShrinksADisagreement() {
        // A model that is wrong on purpose (its grid 1 ns off) must be caught, or the suite proves nothing.
        let setup = TimerSetup(
            interval: .seconds(1),
            repeats: .forever,
            first: .afterInterval,
            leeway: .zero,
            latePolicy: .coalesce,
            delivery: .immediate,
            clock: .monotonic,
            monotonicStart: .zero
        )
        let operations: [TimerOperation] = [
            .fire, .addObserver, .start, .pause, .resume, .advance(.milliseconds(999)), .fire, .advance(.seconds(2)),
        ]
        #expect(TimerModelRunner.replay(setup, operations).failure == nil)
        var skewed = setup
        skewed.first = .after(.seconds(1) + .nanoseconds(1))
        let outcome = TimerModelRunner.shrink(setup, modelSetup: skewed, operations)
        #expect(outcome.failure?.contains("timeUntilNextTick: timer Optional(1.0 seconds)") == true)
        #expect(outcome.operations.map(\.description) == ["start"])
    }
}
