import Dispatch

/// What a ``TimingWheel`` arms on its scheduler: one small object per wheel, made once, that holds the wheel weakly.
///
/// The scheduler keeps the driver alive while an action is armed for it; the driver does not keep the wheel alive,
/// so dropping the last reference to a wheel frees it (its `deinit` cancels the armed action). On
/// ``SystemScheduler`` the driver is armed with no closure (``ScheduledTargetReference``), so a driver run allocates nothing;
/// other schedulers get a closure that captures the driver.
final class WheelDriver: DeliveryLane, @unchecked Sendable {
    // @unchecked: `wheel` and `drainItem` are written once, in `TimingWheel.init`, before the driver is handed to
    // any scheduler or thread, and only read afterwards; a weak reference's loads are themselves thread-safe, and a
    // `DispatchWorkItem` may be submitted from any thread.
    nonisolated(unsafe) weak var wheel: TimingWheel?
    /// Drains the wheel's queued batch on its delivery queue: one work item, submitted again for each batch, so
    /// queue delivery allocates no closure per driver run. Holds the driver weakly.
    nonisolated(unsafe) var drainItem: DispatchWorkItem?

    /// The scheduler reached the deadline armed with token `tag` (on ``SystemScheduler``, the action's id).
    func scheduledDeadlineReached(tag: UInt64) {
        wheel?.driverFired(token: tag)
    }

    /// Runs the fired timers waiting for the wheel's delivery queue (on that queue).
    func drainQueued() {
        wheel?.drainQueued()
    }

    /// A delivery-pool worker runs the wheel's waiting batches (default delivery on ``SystemScheduler``).
    func runDeliveries() {
        wheel?.drainQueued()
    }
}
