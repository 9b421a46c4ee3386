import Foundation
public import Logging

extension JobScheduler where C == ContinuousClock {
    /// Creates a scheduler on the continuous clock (it keeps counting while the machine sleeps) and the system's
    /// wall clock.
    ///
    /// - Parameters:
    ///   - configuration: The grace period and the jitter's seed.
    ///   - store: Where cursors are kept (default: a new ``InMemoryJobStore``).
    ///   - coordinator: Asked before each run whether this process runs the date (default: a
    ///     ``LocalJobCoordinator``).
    ///   - logger: The logger for runs, failures and shutdown.
    public convenience init(
        configuration: Configuration = Configuration(),
        store: any JobStore = InMemoryJobStore(),
        coordinator: any JobCoordinator = LocalJobCoordinator(),
        logger: Logger
    ) {
        self.init(
            configuration: configuration, store: store, coordinator: coordinator, logger: logger,
            clock: ContinuousClock())
    }
}
