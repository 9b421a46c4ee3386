#if os(Linux)
import Testing

@testable import Tempo

/// The main timerfd of a clock is armed with an interval, so that a repeating timer in its steady state re-arms it with
/// no system call (issue #44): `TimerfdAlarm.Reload` decides when the kernel fires at the next wake by itself. The
/// figure (system calls per tick) is counted by `Benchmarks/Scripts/timer-syscalls.sh`; this checks the rule.
@Suite struct TimerfdReloadTests {
    typealias Reload = TimerfdAlarm.Reload

    @Test func aRepeatingWakeLearnsItsPeriodAndThenNeedsNoCall() {
        var reload = Reload()
        // First arm at 1,000: nothing to learn from.
        #expect(!reload.firesByItself(at: 1_000, now: 10))
        #expect(reload.period(for: 1_000, now: 10) == 0)
        reload = Reload(base: 1_000, period: 0, last: 1_000)
        // Woken at 1,000 (now 1,020), the next wake 2,000: armed with the distance from the last wake.
        #expect(!reload.firesByItself(at: 2_000, now: 1_020))
        #expect(reload.period(for: 2_000, now: 1_020) == 1_000)
        reload = Reload(base: 2_000, period: 1_000, last: 2_000)
        // Woken at 2,000: the kernel re-armed itself for 3,000 when the wake was read.
        #expect(reload.firesByItself(at: 3_000, now: 2_030))
        // Any other next wake needs a call: earlier, later, off the grid, or a grid point beyond the next one.
        #expect(!reload.firesByItself(at: 2_500, now: 2_030))
        #expect(!reload.firesByItself(at: 3_001, now: 2_030))
        #expect(!reload.firesByItself(at: 4_000, now: 2_030), "the kernel would fire at 3,000 first")
        // A wake already due is never left to the grid: the read may have consumed its expiry.
        #expect(!reload.firesByItself(at: 3_000, now: 3_000))
        // Before the setting's first expiry there is no grid point.
        #expect(!reload.firesByItself(at: 1_000, now: 500))
    }

    @Test func anEarlierDeadlineArmedWhileWaitingIsArmedOnce() {
        // Waiting for 5,000 (armed at 3,000 with a period), an earlier deadline 4,000 comes in at 3,500: the last wake
        // asked for (5,000) has not passed, so the new setting has no period.
        let reload = Reload(base: 5_000, period: 2_000, last: 5_000)
        #expect(!reload.firesByItself(at: 4_000, now: 3_500))
        #expect(reload.period(for: 4_000, now: 3_500) == 0)
    }

    @Test func aLateReArmStillFindsTheNextGridPoint() {
        // Handlers ran past the next grid point (now 3,100 > 3,000): 4,000 is the first grid point after now, so the
        // kernel fires by then at the latest (at once, for the expiry at 3,000 nobody read yet).
        let reload = Reload(base: 2_000, period: 1_000, last: 3_000)
        #expect(reload.firesByItself(at: 4_000, now: 3_100))
        #expect(!reload.firesByItself(at: 3_000, now: 3_100), "a past wake is armed again")
    }
}
#endif
