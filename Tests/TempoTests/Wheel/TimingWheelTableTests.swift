import Tempo
import TempoTesting
import Testing

/// The wheel's table grows in fixed chunks: never more than one chunk (1,024 entries) beyond the timers it holds.
@Suite struct TimingWheelTableTests {
    @Test(arguments: [100_000, 1_000_000])
    func aValueTimerCostsAtMost48BytesOfTableAtScale(count: Int) throws {
        let wheel = try TimingWheel(configuration: .immediate, scheduler: VirtualClock(), handler: ValueLog())
        for value in 0..<count { try wheel.schedule(after: .seconds(3_600), value: UInt64(value)) }
        let perTimer = Double(wheel.tableBytes) / Double(count)
        print("TimingWheel table: \(perTimer) bytes per value timer at \(count) armed")
        // 32 bytes per entry, plus at most one chunk of slack and the chunk directory.
        #expect(perTimer <= 48)
        #expect(perTimer >= 32)
    }

    @Test func growingKeepsEveryTimerAndItsHandle() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(
            configuration: .init(resolution: .milliseconds(1), delivery: .immediate, initialCapacity: 0),
            scheduler: clock,
            handler: log)
        var handles: [TimingWheel.Handle] = []
        for value in 0..<5_000 {
            handles.append(try wheel.schedule(after: .milliseconds(Int64(1 + value % 50)), value: UInt64(value)))
            if value % 7 == 0 { try wheel.schedule(after: .milliseconds(Int64(1 + value % 50))) {} }
        }
        wheel._checkInvariants()
        for (value, handle) in handles.enumerated() where value % 3 == 0 { #expect(wheel.cancel(handle)) }
        clock.advance(by: .milliseconds(50))
        #expect(log.count == 5_000 - (5_000 + 2) / 3)
        #expect(log.values.allSatisfy { $0 % 3 != 0 })
        #expect(wheel.count == 0)
        wheel._checkInvariants()
    }
}
