import Dispatch
import Tempo
import Testing

/// The system scheduler re-arms its kernel timer once after running due actions, not on each insert an
/// action makes; these check that nothing scheduled meanwhile is lost.
@Suite struct SystemSchedulerRearmTests {
    @Test func anActionThatSchedulesTheNextOneFromTheDriverThreadIsRun() {
        let scheduler = SystemScheduler.shared
        let fired = DispatchSemaphore(value: 0)
        let first = scheduler.now(.monotonic) + .milliseconds(1)
        _ = scheduler.schedule(at: first, leeway: .zero, clock: .monotonic) {
            let second = scheduler.now(.monotonic) + .milliseconds(2)
            _ = scheduler.schedule(at: second, leeway: .zero, clock: .monotonic) {
                #expect(scheduler.now(.monotonic) >= second)
                fired.signal()
            }
        }
        #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    }

    @Test func anInsertFromAnotherThreadWhileActionsRunIsRunAfterThem() {
        let scheduler = SystemScheduler.shared
        let inAction = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let fired = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(at: scheduler.now(.monotonic), leeway: .zero, clock: .monotonic) {
            inAction.signal()
            _ = release.wait(timeout: .now() + .seconds(10))
        }
        #expect(inAction.wait(timeout: .now() + .seconds(10)) == .success)
        let due = scheduler.now(.monotonic) + .milliseconds(5)
        _ = scheduler.schedule(at: due, leeway: .zero, clock: .monotonic) {
            #expect(scheduler.now(.monotonic) >= due)
            fired.signal()
        }
        release.signal()
        #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    }

    @Test func cancellingTheEarliestActionLeavesTheLaterOnesOnTime() {
        // Cancel does not re-arm the kernel timer: the driver wakes for nothing at the cancelled deadline and
        // re-arms for the next one, which must still run, and not early.
        let scheduler = SystemScheduler.shared
        let fired = DispatchSemaphore(value: 0)
        let early = scheduler.schedule(
            at: scheduler.now(.monotonic) + .milliseconds(2), leeway: .zero, clock: .monotonic
        ) {
            Issue.record("a cancelled action ran")
        }
        let later = scheduler.now(.monotonic) + .milliseconds(30)
        _ = scheduler.schedule(at: later, leeway: .zero, clock: .monotonic) {
            #expect(scheduler.now(.monotonic) >= later)
            fired.signal()
        }
        scheduler.cancel(early)
        #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    }
}
