/// Owns a ``TempoTimer`` and cancels it when released, like a `DispatchSourceTimer`, a Repeat `Repeater`
/// or Combine's `AnyCancellable`.
///
/// A running ``TempoTimer`` is kept alive by its scheduler, so releasing it does not stop it (the default,
/// so that `TempoTimer(.every(...)).start()` keeps firing without being stored). When the owner's lifetime should bound the
/// timer's, keep a handle instead:
///
/// ```swift
/// final class Poller {
///     private let timer: TimerHandle
///     init() throws {
///         timer = TimerHandle(try TempoTimer(.every(.seconds(30))) { _ in refresh() }.start())
///     }
///     // No deinit needed: releasing the Poller releases the handle, which cancels the timer.
/// }
/// ```
///
/// - **Cancellation** happens in the handle's `deinit`, with ``TempoTimer/cancel()``'s guarantee: once the
///   last reference to the handle is gone, no further tick starts (a run already under way completes), and
///   the scheduler releases the timer and its handlers.
/// - A handler that captures its owner strongly keeps the owner (and so the handle) alive: capture the owner
///   weakly, or use the handler form that receives the timer.
///
/// `TimerHandle` is `Sendable`; all methods are safe from any thread. Two handles are equal when they are the
/// same object.
public final class TimerHandle: Sendable, Hashable {
    /// The owned timer, for ``TempoTimer/pause()``, ``TempoTimer/reset(interval:)`` and the rest.
    ///
    /// Keeping a reference to it does not keep it running once the handle is released.
    public let timer: TempoTimer

    /// Takes ownership of `timer`: releasing the handle cancels it.
    ///
    /// - Parameter timer: The timer, in any state.
    public init(_ timer: TempoTimer) {
        self.timer = timer
    }

    deinit {
        timer.cancel()
    }

    /// Cancels the timer now; see ``TempoTimer/cancel()``.
    public func cancel() {
        timer.cancel()
    }

    /// Whether two handles are the same object.
    ///
    /// - Parameters:
    ///   - lhs: A handle.
    ///   - rhs: Another handle.
    /// - Returns: `lhs === rhs`.
    public static func == (lhs: TimerHandle, rhs: TimerHandle) -> Bool {
        lhs === rhs
    }

    /// Hashes the handle's identity.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension TempoTimer {
    /// A ``TimerHandle`` that owns this timer: releasing the handle cancels the timer.
    ///
    /// ```swift
    /// let handle = try TempoTimer(.every(.seconds(1))) { _ in tick() }.start().cancelledOnRelease()
    /// ```
    ///
    /// - Returns: A new handle; each handle cancels the timer when it is released.
    public func cancelledOnRelease() -> TimerHandle {
        TimerHandle(self)
    }
}
