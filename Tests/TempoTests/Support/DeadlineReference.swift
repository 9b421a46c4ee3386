/// A (deadline, id) entry for the reference heaps that the deadline-queue tests check a queue against: ordered
/// by deadline, then by insertion id, which is the FIFO order the queues promise for equal deadlines.
struct DeadlineReference: Comparable {
    var deadline: Int
    var id: UInt64

    static func < (a: DeadlineReference, b: DeadlineReference) -> Bool { (a.deadline, a.id) < (b.deadline, b.id) }
}
