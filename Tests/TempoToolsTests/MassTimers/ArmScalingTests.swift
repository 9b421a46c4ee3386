import Testing

@testable import TempoTools

@Suite struct ArmScalingTests {
    /// With no more threads than the processors the process may use, every thread of a case is bound to one of its own
    /// (Linux); with more, none is, and the result says which.
    @Test func threadsAreBoundOnePerProcessorWhenThereAreEnough() throws {
        let allowed = ArmScaling.allowedProcessorCount
        #if os(Linux)
        #expect(allowed >= 1)
        #endif
        let oneThread = try ArmScaling.run(.timerOneThread, threads: 2, perThread: 10, passes: 2)
        #expect(oneThread.threads == 1)
        #expect(oneThread.boundToProcessors == (allowed >= 1))
        let shared = try ArmScaling.run(.timerShared, threads: 2, perThread: 10, passes: 2)
        #expect(shared.boundToProcessors == (allowed >= 2))
        let tooMany = try ArmScaling.run(.timerShared, threads: allowed + 1, perThread: 10, passes: 2)
        #expect(!tooMany.boundToProcessors)
    }
}
