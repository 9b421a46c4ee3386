import Tempo

/// The random numbers of jitter: SplitMix64 from a seed (the same waits on every run), or the system's generator.
struct JobRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64?

    init(seed: UInt64?) {
        state = seed
    }

    mutating func next() -> UInt64 {
        guard var value = state else {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
        value &+= 0x9E37_79B9_7F4A_7C15
        state = value
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Jenkins' `H`: a hash of a job's name that is the same on every run and every machine (FNV-1a over its UTF-8,
/// then SplitMix64's finalizer to spread close names), unlike `Hasher`, which is seeded per process.
enum StableHash {
    static func of(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 31)
    }

    /// The stable delay of `name` in `0 ..< spread`, to the nanosecond.
    static func offset(of name: String, spread: Duration) -> Duration {
        // Whole nanoseconds, saturated at about 292 years (a negative spread is no spread).
        let nanoseconds = spread.nanoseconds(rounded: .down)
        guard nanoseconds > 0 else { return .zero }
        return .nanoseconds(Int64(of(name) % UInt64(nanoseconds)))
    }
}
