import Tempo

extension MassTimerBench {
    /// Measures `subject` through its peer (the peers the benchmark package compares, see `TimerPeers.swift`).
    static func measure(
        _ subject: Subject,
        count: Int,
        progress: @Sendable (Phase, Double) -> Void
    ) async -> (arm: Duration, cancel: Duration, bytes: Int64) {
        switch subject {
        case .tempoTimer: await measure(TempoTimerPeer.self, count: count, progress: progress)
        case .wheel: await measure(WheelValuePeer.self, count: count, progress: progress)
        case .dispatchSource: await measure(DispatchPeer.self, count: count, progress: progress)
        case .taskSleep: await measure(TaskSleepPeer.self, count: count, progress: progress)
        }
    }

    /// Arms `count` timers due in an hour (none fires), reads the heap they hold, then cancels them all.
    ///
    /// The peer is created after the first heap reading, so what it allocates up front (a wheel's table, a
    /// queue) counts toward the bytes per timer; the wheel is sized as `TimingWheel`'s default configuration
    /// sizes it, and grows as timers are armed.
    private static func measure<Peer: TimerPeer>(
        _: Peer.Type,
        count: Int,
        progress: @Sendable (Phase, Double) -> Void
    ) async -> (arm: Duration, cancel: Duration, bytes: Int64) {
        var tokens: [Peer.Token] = []
        tokens.reserveCapacity(count)
        let heapBefore = await settledHeapBytes()
        let peer = Peer(capacity: TimingWheel.Configuration().initialCapacity, counter: FireCounter())
        let armStart = now()
        inTwentieths(of: count, .arm, progress) { range in
            for _ in range { tokens.append(peer.arm(after: .seconds(3600))) }
        }
        await peer.settle(armed: count)
        let armed = now() - armStart
        let bytes = heapBytes() - heapBefore
        let cancelStart = now()
        inTwentieths(of: count, .cancel, progress) { range in
            for index in range { peer.cancel(tokens[index]) }
        }
        await peer.settle(cancelled: count)
        tokens.removeAll()
        let cancelled = now() - cancelStart
        peer.shutdown()
        return (armed, cancelled, bytes)
    }
}
