extension MassTimerBench {
    /// One subject at one count over several rounds, against a peer measured in the same rounds.
    ///
    /// Wall-clock costs on a shared machine move by tens of percent between runs, and a peer's own cost moves
    /// with what ran before it (a fresh heap pays page faults that a reused one does not). So every ratio is
    /// taken within one round, against the peer's figure of that round, and the summary reports the median of
    /// those per-round ratios with their range; times are medians too. Bytes are the first round's, and
    /// ``laterBytesPerTimer`` gives the later rounds' apart: a later round reads less when something the first round
    /// grew is kept after its timers ended (``SystemScheduler``'s table was, 36 B per timer, until it gave its
    /// chunks back).
    ///
    /// A value type; `Sendable`.
    package struct Summary: Sendable, Equatable {
        /// What was armed.
        package let subject: Subject
        /// How many timers per round.
        package let count: Int
        /// How many rounds measured the subject at this count.
        package let rounds: Int
        /// The median of the rounds' nanoseconds per arm.
        package let armNanoseconds: Double
        /// The median of the rounds' nanoseconds per cancel.
        package let cancelNanoseconds: Double
        /// The heap bytes per armed timer in the first round that measured the subject at this count.
        package let bytesPerTimer: Double
        /// The median heap bytes per armed timer of the later rounds, or `nil` after one round.
        package let laterBytesPerTimer: Double?
        /// Per-round ratios to the peer, or `nil` when the peer was not measured at this count.
        package let ratios: Ratios?
    }

    /// The median and range of per-round ratios to the peer (a value below 1 means cheaper than the peer).
    ///
    /// A value type; `Sendable`.
    package struct Ratios: Sendable, Equatable {
        /// Arm time over the peer's.
        package let arm: Double
        /// Cancel time over the peer's.
        package let cancel: Double
        /// Heap bytes over the peer's, in the first round.
        package let bytes: Double
        /// Arm plus cancel time over the peer's arm plus cancel time: the cost of a timer that is armed and
        /// cancelled before it fires (a timeout for work that finished in time).
        package let armAndCancel: Double
        /// The smallest and largest per-round value of ``armAndCancel``.
        package let armAndCancelRange: ClosedRange<Double>
    }

    /// Summarizes the results of several rounds, in the order subjects and counts first appear.
    ///
    /// A pure function of its arguments: safe to call from any thread.
    ///
    /// - Parameters:
    ///   - rounds: Each round's results (one per subject and count measured in it).
    ///   - peer: The subject the ratios are taken against.
    /// - Returns: One summary per subject and count. A round in which the peer has no result at that count
    ///   (or a zero figure) adds nothing to the ratios.
    /// - Complexity: O(*n* log *n*) in the number of results.
    package static func summarize(_ rounds: [[Result]], against peer: Subject = .dispatchSource) -> [Summary] {
        var keys: [Key] = []
        var measured: [Key: [Result]] = [:]
        var ratios: [Key: [(arm: Double, cancel: Double, bytes: Double, both: Double)]] = [:]
        for round in rounds {
            for result in round {
                let key = Key(subject: result.subject, count: result.count)
                if measured[key] == nil { keys.append(key) }
                measured[key, default: []].append(result)
                guard
                    let other = round.first(where: { $0.subject == peer && $0.count == result.count }),
                    other.armNanoseconds > 0, other.cancelNanoseconds > 0
                else { continue }
                ratios[key, default: []].append(
                    (
                        arm: result.armNanoseconds / other.armNanoseconds,
                        cancel: result.cancelNanoseconds / other.cancelNanoseconds,
                        bytes: other.bytesPerTimer > 0 ? result.bytesPerTimer / other.bytesPerTimer : 0,
                        both: (result.armNanoseconds + result.cancelNanoseconds)
                            / (other.armNanoseconds + other.cancelNanoseconds)
                    ))
            }
        }
        return keys.map { key in
            let results = measured[key] ?? []
            let perRound = ratios[key] ?? []
            let both = perRound.map(\.both)
            return Summary(
                subject: key.subject,
                count: key.count,
                rounds: results.count,
                armNanoseconds: median(results.map(\.armNanoseconds)),
                cancelNanoseconds: median(results.map(\.cancelNanoseconds)),
                bytesPerTimer: results.first?.bytesPerTimer ?? 0,
                laterBytesPerTimer: results.count > 1 ? median(results.dropFirst().map(\.bytesPerTimer)) : nil,
                ratios: perRound.isEmpty
                    ? nil
                    : Ratios(
                        arm: median(perRound.map(\.arm)),
                        cancel: median(perRound.map(\.cancel)),
                        bytes: perRound[0].bytes,
                        armAndCancel: median(both),
                        armAndCancelRange: both.min()!...both.max()!
                    )
            )
        }
    }

    /// The order in which round `round` (from 0) measures `subjects`: as given in even rounds, reversed in odd
    /// ones, so that no subject always runs first on a fresh heap or last on a reused one. A pure function: safe to
    /// call from any thread.
    package static func order(of subjects: [Subject], inRound round: Int) -> [Subject] {
        round.isMultiple(of: 2) ? subjects : subjects.reversed()
    }

    private struct Key: Hashable {
        let subject: Subject
        let count: Int
    }

    /// The median of `values` (the mean of the middle two for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
