import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// A thread-safe count (the handler runs on the timer's queue).
final class SaveCounter: Sendable {
    private let count = TempoMutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// The Getting Started article's example, compiled and run.
final class AutoSaver: Sendable {
    private let timer: TempoTimer
    let saves = SaveCounter()

    init(scheduler: any TimerScheduler = SystemScheduler.shared) throws {
        let saves = self.saves
        timer = try TempoTimer(.every(.seconds(30), latePolicy: .coalesce), scheduler: scheduler) { _ in
            saves.increment()
        }
    }

    func appDidBecomeActive() { timer.start() }
    func appDidEnterBackground() { timer.pause() }
    func documentDidChangeALot() { timer.fire() }
    deinit { timer.cancel() }
}

@Suite struct GettingStartedExampleTests {
    @Test func autoSaverSavesEveryThirtySecondsAndPausesInTheBackground() throws {
        let clock = VirtualClock()
        let saver = try AutoSaver(scheduler: clock)
        saver.appDidBecomeActive()
        clock.advance(by: .seconds(29))
        #expect(saver.saves.value == 0)
        clock.advance(by: .seconds(1))
        #expect(saver.saves.value == 1)

        clock.advance(by: .seconds(10))
        saver.appDidEnterBackground()
        clock.advance(by: .seconds(3_600))
        #expect(saver.saves.value == 1)
        saver.appDidBecomeActive()
        clock.advance(by: .seconds(19))
        #expect(saver.saves.value == 1)
        clock.advance(by: .seconds(1))
        #expect(saver.saves.value == 2)
        saver.documentDidChangeALot()
        #expect(saver.saves.value == 3)
    }

    @Test func readmeExamplePollsEveryFiveSeconds() throws {
        let clock = VirtualClock()
        let count = TempoMutex(0)
        let timer = try TempoTimer(.every(.seconds(5)), scheduler: clock) { _ in count.withLock { $0 += 1 } }
        timer.start()
        clock.advance(by: .milliseconds(4_999))
        #expect(count.withLock { $0 } == 0)
        clock.advance(by: .milliseconds(1))
        #expect(count.withLock { $0 } == 1)
    }
}
