import Benchmark

/// Keeps a benchmark's state between its setup, iterations and teardown.
final class Holder<Peer: TimerPeer> {
    var armed: ArmedSet<Peer>?
}

/// `size` timers armed far out, kept in arm order in a ring, so operations run against a steady load.
final class ArmedSet<Peer: TimerPeer> {
    let peer: Peer
    let counter = FireCounter()
    var tokens: [Peer.Token] = []
    /// The oldest timer in `tokens`.
    var head = 0
    var random = SplitMix(seed: 42)

    init(size: Int) {
        peer = Peer(capacity: size + 2 * batch, counter: counter)
        tokens.reserveCapacity(size)
        peer.withOwner { [self] in
            for _ in 0..<size { tokens.append(peer.arm(after: farOut)) }
        }
    }

    func teardown() {
        if !Peer.shutdownCancelsAll {
            peer.withOwner { [self] in
                for token in tokens { peer.cancel(token) }
            }
        }
        tokens = []
        peer.shutdown()
    }

    /// Arms `batch` timers (measured), then cancels them (not measured).
    func measureArm(_ benchmark: Benchmark) {
        var fresh: [Peer.Token] = []
        fresh.reserveCapacity(batch)
        peer.withOwner { [self] in
            benchmark.startMeasurement()
            for _ in 0..<batch { fresh.append(peer.arm(after: farOut)) }
            benchmark.stopMeasurement()
            for token in fresh { peer.cancel(token) }
        }
    }

    /// Cancels the `batch` oldest timers (measured), then arms replacements, which become the newest.
    func measureCancelInOrder(_ benchmark: Benchmark) {
        let count = tokens.count
        peer.withOwner { [self] in
            benchmark.startMeasurement()
            for offset in 0..<batch { peer.cancel(tokens[(head + offset) % count]) }
            benchmark.stopMeasurement()
            for offset in 0..<batch { tokens[(head + offset) % count] = peer.arm(after: farOut) }
        }
        head = (head + batch) % count
    }

    /// Cancels `batch` distinct timers picked at random (measured), then arms replacements in their places.
    func measureCancelRandom(_ benchmark: Benchmark) {
        let count = tokens.count
        // A stride coprime with `count` visits distinct places; the start and stride are random.
        let start = Int(random.next() % UInt64(count))
        let primes = [7_919, 104_729, 1_299_709, 15_485_863]  // coprime with every power of ten
        let stride = primes[Int(random.next() % UInt64(primes.count))]
        let places = (0..<batch).map { (start + $0 * stride) % count }
        peer.withOwner { [self] in
            benchmark.startMeasurement()
            for place in places { peer.cancel(tokens[place]) }
            benchmark.stopMeasurement()
            for place in places { tokens[place] = peer.arm(after: farOut) }
        }
    }

    /// Arms a timer and cancels it at once, `batch` times (measured): a timeout for work that finished.
    func measureArmThenCancel(_ benchmark: Benchmark) {
        peer.withOwner { [self] in
            benchmark.startMeasurement()
            for _ in 0..<batch { peer.cancel(peer.arm(after: farOut)) }
            benchmark.stopMeasurement()
        }
    }
}

/// SplitMix64, so the random cancellation order is the same in every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
