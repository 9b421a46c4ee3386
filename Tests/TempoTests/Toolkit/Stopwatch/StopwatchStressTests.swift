import Tempo
import TempoTesting
import Testing

@Suite struct StopwatchStressTests {
    @Test func lapsFromFourThreadsAddUpToNoMoreThanTheElapsedTime() {
        let clock = VirtualClock()
        let stopwatch = Stopwatch(scheduler: clock)
        stopwatch.start()
        Thread.run(5) { thread in
            for index in 0..<2_000 {
                switch thread {
                case 4: clock.advance(by: .microseconds(7))
                case 3 where index % 2 == 0: stopwatch.pause()
                case 3: stopwatch.resume()
                default: stopwatch.lap()
                }
            }
        }
        stopwatch.pause()
        let laps = stopwatch.laps
        #expect(laps.count == 3 * 2_000)
        #expect(laps.allSatisfy { $0 >= .zero })
        #expect(laps.reduce(.zero, +) <= stopwatch.elapsed)
        #expect(stopwatch.elapsed <= .microseconds(7 * 2_000))
    }
}
