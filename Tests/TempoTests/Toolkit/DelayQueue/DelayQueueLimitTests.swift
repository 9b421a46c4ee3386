import Tempo
import TempoTesting
import Testing

/// Deadlines on another clock at the limits of `Duration` (issue #41): converting them to the queue's clock trapped
/// with "Overflow in -"; they throw `invalidInstant` naming the deadline.
@Suite struct DelayQueueLimitTests {
    @Test(arguments: [Int128.min, Int128.min + 1, Int128.max - 1, Int128.max])
    func aDeadlineOnAnotherClockAtTheLimitsThrowsInsteadOfTrapping(attoseconds: Int128) throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(configuration: .immediate, scheduler: clock)
        let instant = TimerInstant(offset: Duration(attoseconds: attoseconds))
        for deadline in [TimerDeadline.wall(instant), .continuous(instant)] {
            let inserted = #expect(throws: TempoError.self) { try queue.insert(1, forKey: "a", at: deadline) }
            #expect(inserted?.code == .invalidInstant)
            #expect(inserted?.value == "\(instant)")
        }
        try queue.insert(1, forKey: "a", after: .seconds(1))
        let moved = #expect(throws: TempoError.self) { try queue.reschedule("a", at: .wall(instant)) }
        #expect(moved?.code == .invalidInstant)
        let count = queue.count
        #expect(count == 1)
        let deadline = queue.deadline(of: "a")
        #expect(deadline?.instant == TimerInstant(offset: .seconds(1)))
    }
}
