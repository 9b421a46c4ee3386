import Synchronization
import Testing

@testable import Tempo

/// The timer's mailbox and handler list, which keep their common case inline so that an armed timer stays small.
@Suite struct TimerMailboxTests {
    /// The mailbox's deliveries in order, each as a short string, emptying it.
    private func drain(_ mailbox: inout TimerMailbox) -> [String] {
        var result: [String] = []
        while let delivery = mailbox.first {
            switch delivery {
            case .ticks(let first, _, _, let following): result.append("ticks \(first)+\(following)")
            case .manual(let index, _): result.append("manual \(index)")
            case .state(let state): result.append("state \(state)")
            }
            mailbox.removeFirst()
        }
        return result
    }

    private func ticks(_ first: Int, following: UInt32 = 0) -> TimerMailbox.Delivery {
        .ticks(first: first, firstDue: TimerInstant(offset: .seconds(first)), missed: 0, following: following)
    }

    private func filled(consumed: Int) -> TimerMailbox {
        var mailbox = TimerMailbox()
        mailbox.append(ticks(0))
        mailbox.append(.state(.running))
        mailbox.append(.manual(index: 1, requested: .zero))
        mailbox.append(ticks(1, following: 2))
        mailbox.append(.state(.paused))
        mailbox.append(.manual(index: 4, requested: .zero))
        mailbox.append(ticks(4))
        for _ in 0..<consumed { mailbox.removeFirst() }
        return mailbox
    }

    @Test func deliveriesComeOutInTheOrderTheyWentIn() {
        var mailbox = filled(consumed: 0)
        #expect(mailbox.scheduledTicks() == 5)
        #expect(mailbox.hasScheduledTicks())
        #expect(
            drain(&mailbox) == [
                "ticks 0+0", "state running", "manual 1", "ticks 1+2", "state paused", "manual 4", "ticks 4+0",
            ])
        #expect(!mailbox.hasScheduledTicks())
    }

    @Test(arguments: 0..<4)
    func aResetRemovesOnlyTheQueuedTicks(consumed: Int) {
        var mailbox = filled(consumed: consumed)
        let expected = Array(["state running", "manual 1", "state paused", "manual 4"].dropFirst(max(0, consumed - 1)))
        mailbox.removeTicks(andManualFires: false)
        #expect(mailbox.scheduledTicks() == 0)
        #expect(drain(&mailbox) == expected)
    }

    @Test(arguments: 0..<4)
    func aCancelRemovesTheQueuedTicksAndManualFiresButKeepsStateChanges(consumed: Int) {
        var mailbox = filled(consumed: consumed)
        let expected = consumed < 2 ? ["state running", "state paused"] : ["state paused"]
        mailbox.removeTicks(andManualFires: true)
        #expect(!mailbox.hasScheduledTicks())
        #expect(drain(&mailbox) == expected)
        // The mailbox still works after the removal, its overflow storage included.
        mailbox.append(ticks(7))
        mailbox.append(.state(.cancelled))
        #expect(drain(&mailbox) == ["ticks 7+0", "state cancelled"])
    }

    @Test func handlerIDsAreNeverReusedWhateverIsRemoved() {
        var handlers = TimerHandlers()
        let calls = CallLog()
        let first = handlers.add { _ in calls.append(0) }
        #expect(first == 0)
        #expect(handlers.remove(id: 0).found)
        #expect(handlers.count == 0)
        let second = handlers.add { _ in calls.append(1) }
        let third = handlers.add { _ in calls.append(2) }
        #expect([second, third] == [1, 2])
        _ = handlers.removeAll()
        let fourth = handlers.add { _ in calls.append(3) }
        #expect(fourth == 3)
        #expect(!handlers.remove(id: 1).found)
        handlers.callAll(TimerTick(index: 1, due: .zero, lateness: .zero))
        #expect(calls.values == [3])
    }

    // MARK: Lending (the drain's run of a lone first handler, with no reference count)

    private static let tick = TimerTick(index: 1, due: .zero, lateness: .zero)

    /// Calls a run's handlers and hands back what the drain gives back (the lent handler, if any).
    private func run(_ run: consuming TimerHandlers.Run) -> TimerHandlers.Lent? {
        run.callAll(Self.tick)
    }

    @Test func aLoneFirstHandlerIsLentAndComesBack() throws {
        var handlers = TimerHandlers()
        let calls = CallLog()
        _ = handlers.add { _ in calls.append(0) }
        for _ in 0..<2 {
            let lent = try #require(run(handlers.lend()), "a lone first handler is lent, not copied")
            // Out on loan, it still counts.
            #expect(handlers.count == 1)
            #expect(handlers.giveBack(lent) == nil)
            #expect(handlers.count == 1)
        }
        #expect(calls.values == [0, 0])
    }

    @Test func aHandlerAddedWhileTheFirstIsLentComesAfterIt() throws {
        var handlers = TimerHandlers()
        let calls = CallLog()
        _ = handlers.add { _ in calls.append(0) }
        let lent = try #require(run(handlers.lend()))
        #expect(handlers.add { _ in calls.append(1) } == 1)
        #expect(handlers.add { _ in calls.append(2) } == 2)
        #expect(handlers.count == 3)
        #expect(handlers.giveBack(lent) == nil)
        // Several handlers: copied for a run, in the order they were added.
        #expect(run(handlers.lend()) == nil)
        #expect(calls.values == [0, 0, 1, 2])
        #expect(!handlers.remove(id: 3).found)
        #expect(handlers.remove(id: 0).found)
        #expect(run(handlers.lend()) == nil)
        #expect(calls.values == [0, 0, 1, 2, 1, 2])
    }

    @Test(arguments: ["remove", "removeAll", "removeAfterAdd", "removeAllAfterAdd"])
    func aLentHandlerRemovedMeanwhileIsReleasedByTheRunThatHoldsIt(_ removal: String) throws {
        var handlers = TimerHandlers()
        let calls = CallLog()
        weak var weakCapture: CallLog?
        do {
            let capture = CallLog()
            weakCapture = capture
            _ = handlers.add { _ in capture.append(0) }
        }
        var lent = try #require(run(handlers.lend()))
        if removal.hasSuffix("AfterAdd") { _ = handlers.add { _ in calls.append(1) } }
        if removal.hasPrefix("removeAll") {
            #expect(handlers.removeAll().count == (removal.hasSuffix("AfterAdd") ? 2 : 1))
        } else {
            let removed = handlers.remove(id: 0)
            #expect(removed.found)
            // The run holds the closure: the remover has nothing to release.
            #expect(removed.handler == nil)
        }
        #expect(handlers.count == 0 || removal == "removeAfterAdd")
        // The run under way still holds its handler's captures.
        #expect(weakCapture != nil)
        var unwanted = handlers.giveBack(lent)
        lent = .handler { _ in }
        #expect(unwanted != nil, "a removed handler is handed back to the run to release")
        #expect(weakCapture != nil)
        unwanted = nil
        #expect(weakCapture == nil, "the removed handler was released when the run dropped it")
        // Never lent again: later runs call what is registered now.
        #expect(run(handlers.lend()) == nil)
        #expect(calls.values == (removal == "removeAfterAdd" ? [1] : []))
        #expect(handlers.add { _ in calls.append(2) } == (removal.hasSuffix("AfterAdd") ? 2 : 1))
    }

    private final class CallLog: Sendable {
        private let log = Mutex<[Int]>([])
        var values: [Int] { log.withLock { $0 } }
        func append(_ value: Int) { log.withLock { $0.append(value) } }
    }
}
