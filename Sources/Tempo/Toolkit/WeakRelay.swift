/// Lets a timer's handler reach the object that owns the timer without a retain cycle, when the timer must
/// be created in the owner's initializer (before `self` can be captured).
final class WeakRelay<Object: AnyObject & Sendable>: @unchecked Sendable {
    // Written once, at the end of the owner's initializer, before the owner can start its timer; the lock
    // taken to start the timer publishes the write. Read-only afterwards.
    weak var object: Object?

    /// Creates the owner's idle timer, whose ticks go to `deliver` with the owner while it lives.
    ///
    /// - Throws: ``TempoError`` when `configuration` is invalid.
    func timer(
        _ configuration: TempoTimer.Configuration,
        delivery: TimerDelivery,
        label: TimerLabel? = nil,
        scheduler: any TimerScheduler,
        deliver: @escaping @Sendable (Object, TimerTick) -> Void
    ) throws(TempoError) -> TempoTimer {
        try TempoTimer(
            configuration: configuration, delivery: delivery, label: label, scheduler: scheduler, targetIsAlive: nil
        ) { [self] tick in
            if let object { deliver(object, tick) }
        }
    }
}
