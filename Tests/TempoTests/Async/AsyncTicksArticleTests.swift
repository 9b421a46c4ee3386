import Tempo
import TempoTesting
import Testing

/// The test shown in the AsyncTicks DocC article, kept compiling and passing.
@Suite struct AsyncTicksArticleTests {
    @Test func aSlowConsumerGetsOneCoalescedTick() async throws {
        let clock = VirtualClock()
        let ticks = try AsyncTickSequence(every: .seconds(1), clock: clock)
        let consumer = Task {
            var seen: [(index: Int, missed: Int)] = []
            for await tick in ticks {
                seen.append((tick.index, tick.missed))
                if tick.index == 1 { try? await clock.sleep(for: .milliseconds(3500)) }  // a slow body
                if seen.count == 2 { break }
            }
            return seen
        }
        await clock.waitForPending()  // the loop is asleep until tick 1
        clock.advance(by: .seconds(1))  // tick 1; the body then sleeps 3.5 s
        await clock.waitForPending()
        clock.advance(by: .milliseconds(3500))
        let seen = await consumer.value
        #expect(seen.map(\.index) == [1, 4])  // ticks 2 and 3 were folded into 4
        #expect(seen.map(\.missed) == [0, 2])
        #expect(clock.pendingCount == 0)  // nothing stays armed
    }
}
