extension TimingWheel {
    /// How a ``TimingWheel`` measures time and where it runs its timers.
    ///
    /// `Configuration` is a value type and is `Sendable`.
    public struct Configuration: Sendable {
        /// The wheel's resolution, the length of one slot (default 1 ms): a timer fires at the first slot boundary
        /// at or after its deadline, so up to one resolution late (plus the scheduler's own latency) and never early.
        ///
        /// It must be a whole number of nanoseconds, at least 1 ns. (Named apart from ``TimerTick``, a delivery to a
        /// handler; the wheel's internals call one slot step a tick.)
        public var resolution: Duration
        /// The clock deadlines are measured on (default ``TimerClock/monotonic``).
        public var clock: TimerClock
        /// Where the callbacks run (default ``TimerDelivery/privateQueue``: a serial lane of the wheel on Tempo's
        /// delivery pool on ``SystemScheduler``, a serial queue of the wheel on other schedulers):
        /// ``TimerDelivery/queue(_:)`` runs each batch as one work item on that queue;
        /// ``TimerDelivery/immediate`` runs it on the scheduler's driver thread, where callbacks must be short.
        public var delivery: TimerDelivery
        /// How many timers the table holds before it first grows (default 1024, rounded up to whole chunks of
        /// 1,024 entries). When full the table grows by one chunk (32 KiB), never by doubling and without moving
        /// an entry, so it holds at most one chunk more than the most timers it ever held, and arming allocates
        /// only while the wheel holds more timers than ever before.
        public var initialCapacity: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - resolution: The length of one slot; see ``resolution``.
        ///   - delivery: Where the callbacks run; see ``delivery``.
        ///   - clock: The clock deadlines are measured on.
        ///   - initialCapacity: How many timers fit before the table first grows.
        public init(
            resolution: Duration = .milliseconds(1),
            delivery: TimerDelivery = .privateQueue,
            clock: TimerClock = .monotonic,
            initialCapacity: Int = 1024
        ) {
            self.resolution = resolution
            self.clock = clock
            self.delivery = delivery
            self.initialCapacity = initialCapacity
        }

        /// The largest ``initialCapacity`` accepted: 2^24 (16,777,216) timers, about 0.7 GiB of table allocated
        /// up front. A larger table is reached by arming timers, which grows it.
        public static let maximumInitialCapacity = 1 << 24

        /// Checks every field.
        ///
        /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a resolution that is not positive,
        ///   not a whole number of nanoseconds or above 292 years (`Int64.max` ns), and
        ///   ``TempoError/Code/invalidCount`` for a negative `initialCapacity` or one above
        ///   ``maximumInitialCapacity`` (the table still grows past it as timers are armed).
        public func validate() throws(TempoError) {
            try TempoError.validateInterval(resolution, name: "resolution")
            guard resolution.attoseconds % 1_000_000_000 == 0 else {
                throw TempoError(
                    .invalidInterval, value: resolution.exactDescription,
                    message: "resolution must be a whole number of nanoseconds, got \(resolution.exactDescription)")
            }
            guard initialCapacity >= 0, initialCapacity <= Self.maximumInitialCapacity else {
                throw TempoError(
                    .invalidCount, value: "\(initialCapacity)",
                    message:
                        "initialCapacity must be between 0 and \(Self.maximumInitialCapacity), got \(initialCapacity)")
            }
        }
    }
}
