/// What a ``TimingWheel`` arms on its scheduler: one small object per wheel, made once, that holds the wheel weakly.
///
/// The scheduler keeps the driver alive while an action is armed for it; the driver does not keep the wheel alive,
/// so dropping the last reference to a wheel frees it (its `deinit` cancels the armed action). On
/// ``SystemScheduler`` the driver is armed with no closure (``ScheduledTarget``), so a driver run allocates nothing;
/// other schedulers get a closure that captures the driver.
final class WheelDriver: ScheduledTarget, @unchecked Sendable {
    // @unchecked: `wheel` is written once, in `TimingWheel.init`, before the driver is handed to any scheduler
    // or thread, and only read afterwards; a weak reference's loads are themselves thread-safe.
    nonisolated(unsafe) weak var wheel: TimingWheel?

    /// The scheduler reached the deadline armed with token `tag`.
    func scheduledDeadlineReached(tag: UInt64) {
        wheel?.driverFired(token: tag)
    }
}
