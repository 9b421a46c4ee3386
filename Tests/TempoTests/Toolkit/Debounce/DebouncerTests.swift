import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Collects the values an action ran with.
final class RunLog<Value: Sendable>: Sendable {
    private let values = TempoMutex<[Value]>([])
    var all: [Value] { values.withLock { $0 } }
    func record(_ value: Value) { values.withLock { $0.append(value) } }
}

// The example of the DebounceAndThrottle article.
private final class SearchModel: Sendable {
    let debouncer: Debouncer<String>

    init(scheduler: any TimerScheduler = SystemScheduler.shared, search: @escaping @Sendable (String) -> Void) throws {
        debouncer = try Debouncer(delay: .milliseconds(300), scheduler: scheduler, action: search)
    }

    func textChanged(_ text: String) { debouncer.call(text) }
    func returnPressed() { debouncer.flush() }
}

@Suite struct DebouncerTests {
    @Test func runsOnceWithTheLastValueAfterTheCallsStop() throws {
        let clock = VirtualClock()
        let log = RunLog<String>()
        let debouncer = try Debouncer<String>(delay: .seconds(1), scheduler: clock, action: log.record)
        debouncer.call("s")
        clock.advance(by: .milliseconds(600))
        debouncer.call("sw")
        clock.advance(by: .milliseconds(600))
        debouncer.call("swift")
        #expect(debouncer.isPending)
        clock.advance(by: .milliseconds(999))
        #expect(log.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(log.all == ["swift"])
        #expect(!debouncer.isPending)
        clock.advance(by: .seconds(5))
        #expect(log.all == ["swift"])
        #expect(clock.pendingCount == 0)
    }

    @Test func aLaterBurstRunsAgain() throws {
        let clock = VirtualClock()
        let runs = TempoMutex(0)
        let debouncer = try Debouncer(delay: .seconds(1), scheduler: clock) { runs.withLock { $0 += 1 } }
        debouncer.call()
        clock.advance(by: .seconds(1))
        debouncer.call()
        clock.advance(by: .seconds(1))
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func cancelDropsThePendingRun() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock, action: log.record)
        debouncer.call(1)
        #expect(debouncer.cancel())
        #expect(!debouncer.cancel())
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(2))
        #expect(log.all.isEmpty)
    }

    @Test func flushRunsThePendingActionNowAndOnlyOnce() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock, action: log.record)
        #expect(!debouncer.flush())
        debouncer.call(1)
        debouncer.call(2)
        clock.advance(by: .milliseconds(500))
        #expect(debouncer.flush())
        #expect(log.all == [2])
        clock.advance(by: .seconds(2))
        #expect(log.all == [2])
    }

    @Test func changedDelayAppliesFromTheNextCall() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock, action: log.record)
        debouncer.call(1)
        try debouncer.setDelay(.seconds(3))
        #expect(debouncer.delay == .seconds(3))
        clock.advance(by: .seconds(1))
        #expect(log.all == [1])  // the pending run kept its 1 s deadline
        debouncer.call(2)
        clock.advance(by: .milliseconds(2999))
        #expect(log.all == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.all == [1, 2])
        #expect(throws: TempoError.self) { try debouncer.setDelay(.nanoseconds(-1)) }
        #expect(throws: TempoError.self) { try debouncer.setDelay(Duration(attoseconds: 1)) }
        #expect(throws: TempoError.self) { try Debouncer<Int>(delay: .seconds(-1), scheduler: clock) { _ in } }
    }

    @Test func actionMayCallTheDebouncerAgain() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let box = TempoMutex<Debouncer<Int>?>(nil)
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock) { value in
            log.record(value)
            if value < 3 { box.withLock { $0 }?.call(value + 1) }
        }
        box.withLock { $0 = debouncer }
        debouncer.call(1)
        clock.advance(by: .seconds(5))
        #expect(log.all == [1, 2, 3])
        box.withLock { $0 = nil }
    }

    @Test func concurrentCallsFromManyThreadsRunOnce() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock, action: log.record)
        Thread.run(4) { worker in
            for round in 0..<250 { debouncer.call(worker * 1000 + round) }
        }
        clock.advance(by: .milliseconds(999))
        #expect(log.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.count == 1)
        #expect(log.all.first.map { $0 % 1000 } == 249)
    }

    @Test func articleExampleSearch() throws {
        let clock = VirtualClock()
        let searches = TempoMutex<[String]>([])
        let model = try SearchModel(scheduler: clock) { query in searches.withLock { $0.append(query) } }
        for text in ["s", "sw", "swi", "swift"] {
            model.textChanged(text)
            clock.advance(by: .milliseconds(100))
        }
        clock.advance(by: .milliseconds(199))
        #expect(searches.withLock { $0 }.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(searches.withLock { $0 } == ["swift"])
        model.textChanged("swiftui")
        model.returnPressed()
        #expect(searches.withLock { $0 } == ["swift", "swiftui"])
    }
}
