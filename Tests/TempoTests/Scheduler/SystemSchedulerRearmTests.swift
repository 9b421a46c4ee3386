import Dispatch
import Synchronization
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
        // re-arms for the next one, which must still run, and not early. The cancelled action must not run if the
        // cancel returned before its deadline; on a loaded machine this thread can lose the processor for longer
        // than the gap, and then the action may have run first, as it should.
        let scheduler = SystemScheduler.shared
        let fired = DispatchSemaphore(value: 0)
        let cancelledRan = Atomic<Bool>(false)
        let earlyDeadline = scheduler.now(.monotonic) + .milliseconds(20)
        let early = scheduler.schedule(at: earlyDeadline, leeway: .zero, clock: .monotonic) {
            cancelledRan.store(true, ordering: .relaxed)
        }
        let later = scheduler.now(.monotonic) + .milliseconds(60)
        _ = scheduler.schedule(at: later, leeway: .zero, clock: .monotonic) {
            #expect(scheduler.now(.monotonic) >= later)
            fired.signal()
        }
        scheduler.cancel(early)
        let cancelledInTime = scheduler.now(.monotonic) < earlyDeadline
        #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
        if cancelledInTime {
            let ran = cancelledRan.load(ordering: .relaxed)
            #expect(!ran, "an action cancelled before its deadline ran")
        }
    }
}
