import Tempo

/// A plain token bucket with exact arithmetic, the reference the limiters' model tests compare against: the level is
/// kept in units of 1 / `period.attoseconds` tokens, so refilling `elapsed` adds `elapsed.attoseconds · permits` and
/// one token is `period.attoseconds`. A token bucket, not a GCRA: the same admissions reached another way.
struct TokenBucketReference {
    let permits: Int128
    let token: Int128
    let capacity: Int128
    var level: Int128
    var updated: Duration

    init(_ limit: RateLimit, at now: Duration) {
        permits = Int128(limit.permits)
        token = limit.period.attoseconds
        capacity = Int128(limit.burst) * token
        level = capacity
        updated = now
    }

    mutating func refill(to now: Duration) {
        level = min(capacity, level + (now - updated).attoseconds * permits)
        updated = now
    }

    mutating func tryAcquire(at now: Duration) -> Bool {
        refill(to: now)
        guard level >= token else { return false }
        level -= token
        return true
    }

    /// When the bucket is (or was) full again after its last update, rounded up to the attosecond.
    var full: Duration {
        updated + .init(attoseconds: (capacity - level + permits - 1) / permits)
    }
}
