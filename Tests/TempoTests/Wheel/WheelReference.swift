import Collections

/// The simplest correct timer scheduler, for model tests: a heap of `(deadline, sequence)` with lazy deletion.
///
/// A timer due at or before tick `T` (deadline ≤ T × tick) fires when time reaches `T`, in deadline order,
/// equal deadlines in arm order: the contract ``TimingWheel`` promises.
struct WheelReference {
    struct Key: Comparable {
        var deadline: Int64
        var sequence: UInt64
        static func < (a: Key, b: Key) -> Bool { (a.deadline, a.sequence) < (b.deadline, b.sequence) }
    }

    let tickNanoseconds: Int64
    private var heap = Heap<Key>()
    private(set) var live: [UInt64: (deadline: Int64, value: UInt64)] = [:]

    init(tickNanoseconds: Int64) {
        self.tickNanoseconds = tickNanoseconds
    }

    var count: Int { live.count }

    mutating func arm(sequence: UInt64, deadline: Int64, value: UInt64) {
        live[sequence] = (deadline, value)
        heap.insert(Key(deadline: deadline, sequence: sequence))
    }

    mutating func cancel(sequence: UInt64) -> Bool {
        live.removeValue(forKey: sequence) != nil
    }

    mutating func reschedule(sequence: UInt64, deadline: Int64) -> Bool {
        guard live[sequence] != nil else { return false }
        live[sequence]!.deadline = deadline
        heap.insert(Key(deadline: deadline, sequence: sequence))
        return true
    }

    /// Fires everything due at or before tick `tick`; returns the values in firing order.
    mutating func advance(to tick: Int64) -> [UInt64] {
        let (limit, overflow) = tick.multipliedReportingOverflow(by: tickNanoseconds)
        let boundary = overflow ? Int64.max : limit
        var fired: [UInt64] = []
        while let top = heap.min, top.deadline <= boundary {
            heap.removeMin()
            guard let entry = live[top.sequence], entry.deadline == top.deadline else { continue }  // stale key
            live[top.sequence] = nil
            fired.append(entry.value)
        }
        return fired
    }
}
