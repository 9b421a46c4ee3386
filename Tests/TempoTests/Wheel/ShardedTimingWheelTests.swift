import Dispatch
import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite(.serialized) struct ShardedTimingWheelTests {
    @Test func twoThreadsArmOnDifferentShardsAndAnyThreadCancels() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try ShardedTimingWheel(
            configuration: .immediate, shardCount: 2, scheduler: clock, handler: log)
        let armed = TempoMutex<[(handle: TimingWheel.Handle, value: UInt64)]>([])
        // Fresh threads, so each gets its own thread ordinal; consecutive ordinals land on different shards, but a
        // thread that another test starts in between can put both on one shard, so the shard check below accepts
        // either (each thread's timers stay on its one shard).
        let threads = (0..<2).map { thread in
            Thread {
                for index in 0..<100 {
                    let value = UInt64(thread * 1_000 + index)
                    if let handle = try? wheel.schedule(after: .milliseconds(Int64(1 + index % 10)), value: value) {
                        armed.withLock { $0.append((handle, value)) }
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        for thread in threads { thread.join() }
        let all = armed.withLock { $0 }
        #expect(all.count == 200)
        #expect(wheel.shardCounts.reduce(0, +) == 200)
        #expect(wheel.shardCounts.allSatisfy { [0, 100, 200].contains($0) }, "\(wheel.shardCounts)")
        #expect(wheel.count == 200)
        // Cancel a tenth of each thread's timers from this thread.
        var cancelled = Set<UInt64>()
        for (index, handle) in all.enumerated() where index % 10 == 0 {
            #expect(wheel.isArmed(handle.handle))
            #expect(wheel.cancel(handle.handle))
            #expect(!wheel.cancel(handle.handle))
            cancelled.insert(handle.value)
        }
        clock.advance(by: .milliseconds(10) - .nanoseconds(1))
        #expect(log.count < 200 - cancelled.count)  // the 10 ms timers have not fired yet
        clock.advance(by: .nanoseconds(1))
        #expect(Set(log.values) == Set(all.map(\.value)).subtracting(cancelled))
        #expect(log.count == 200 - cancelled.count)
        #expect(wheel.count == 0)
    }

    @Test func aHandleOfAnotherWheelIsANoOpAndBadShardCountsThrow() throws {
        let clock = VirtualClock()
        let wheel = try ShardedTimingWheel(
            configuration: .immediate, shardCount: 3, scheduler: clock, handler: ValueLog())
        let other = try TimingWheel(configuration: .immediate, scheduler: clock, handler: ValueLog())
        let foreign = try other.schedule(after: .seconds(1), value: 1)
        #expect(!wheel.cancel(foreign))
        #expect(!wheel.isArmed(foreign))
        #expect(wheel.deadline(of: foreign) == nil)
        #expect(try !wheel.reschedule(foreign, at: .monotonic(.zero)))
        #expect(other.isArmed(foreign))
        let handle = try wheel.schedule(at: .monotonic(TimerInstant(offset: .seconds(2))), value: 2)
        #expect(wheel.deadline(of: handle)?.instant == TimerInstant(offset: .seconds(2)))
        #expect(try wheel.reschedule(handle, after: .seconds(5)))
        #expect(wheel.deadline(of: handle)?.instant == TimerInstant(offset: .seconds(5)))
        for count in [0, -1, ShardedTimingWheel.maximumShardCount + 1] {
            do {
                _ = try ShardedTimingWheel(shardCount: count, scheduler: clock)
                Issue.record("shardCount \(count) was accepted")
            } catch {
                #expect(error.code == .invalidCount)
                #expect(error.value == "\(count)")
            }
        }
    }
}
