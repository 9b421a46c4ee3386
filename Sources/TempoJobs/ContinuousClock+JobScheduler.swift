import Foundation
public import Logging

extension JobScheduler where C == ContinuousClock {
    /// Creates a scheduler on the continuous clock (it keeps counting while the machine sleeps) and the system's
    /// wall clock.
    ///
    /// - Parameters:
    ///   - configuration: The grace period and the jitter's seed.
    ///   - store: Where cursors are kept (default: a new ``InMemoryJobStore``).
    ///   - logger: The logger for runs, failures and shutdown.
    public convenience init(
        configuration: Configuration = Configuration(),
        store: any JobStore = InMemoryJobStore(),
        logger: Logger
    ) {
        self.init(configuration: configuration, store: store, logger: logger, clock: ContinuousClock())
    }
}
