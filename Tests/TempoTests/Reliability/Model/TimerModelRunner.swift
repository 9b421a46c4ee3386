import Synchronization
import Tempo
import TempoLocks
import TempoTesting

/// Runs one operation sequence against a real `TempoTimer` on a `VirtualClock` and against ``TimerModel``,
/// comparing after every step each delivered tick, each state change and every query.
enum TimerModelRunner {
    /// The outcome of one sequence: the operations that ran and, if the two disagreed, how.
    struct Outcome {
        var operations: [TimerOperation] = []
        var failure: String?
        var ticks = 0
    }

    /// Runs operations chosen by `next` (given the model and the step number; `nil` ends the sequence).
    ///
    /// `modelSetup` builds the model from a different setup, only to check that a disagreement is caught.
    static func run(
        _ setup: TimerSetup,
        modelSetup: TimerSetup? = nil,
        next: (TimerModel, Int) -> TimerOperation?
    ) -> Outcome {
        var outcome = Outcome()
        let clock = VirtualClock(monotonic: setup.monotonicStart)
        let log = ModelEventLog()
        let timer: TempoTimer
        do {
            timer = try TempoTimer(
                .every(
                    setup.interval, repeats: setup.repeats, first: setup.first, leeway: setup.leeway,
                    latePolicy: setup.latePolicy, delivery: setup.delivery.delivery, clock: setup.clock),
                scheduler: clock
            ) { tick in
                log.record(.tick(handler: 0, tick))
            }
        } catch {
            outcome.failure = "the initializer rejected a valid setup: \(error)"
            return outcome
        }
        defer { timer.cancel() }
        timer.onStateChange { log.record(.state($0)) }
        var model = TimerModel(
            configuration: (modelSetup ?? setup).configuration,
            now: [.monotonic: clock.now(.monotonic), .continuous: clock.now(.continuous), .wall: clock.now(.wall)]
        )
        var tokens: [Int: TimerObservation] = [:]
        var step = 0
        while let operation = next(model, step) {
            outcome.operations.append(operation)
            var mismatches: [String] = []
            func agree<Value: Equatable>(_ what: String, _ real: Value, _ expected: Value) {
                if real != expected { mismatches.append("\(what): timer \(real), model \(expected)") }
            }
            switch operation {
            case .start:
                timer.start()
                model.start()
            case .pause:
                timer.pause()
                model.pause()
            case .resume:
                timer.resume()
                model.resume()
            case .cancel:
                timer.cancel()
                model.cancel()
            case .fire:
                agree("fire()", timer.fire(), model.fire())
            case .reset(let interval):
                var threw: TempoError?
                do throws(TempoError) { try timer.reset(interval: interval) } catch { threw = error }
                agree("reset throws", threw != nil, !model.reset(interval: interval))
                if let threw { agree("reset error", threw.code, .invalidInterval) }
            case .setLeeway(let leeway):
                var threw: TempoError?
                do throws(TempoError) { try timer.setLeeway(leeway) } catch { threw = error }
                agree("setLeeway throws", threw != nil, !model.setLeeway(leeway))
                if let threw { agree("setLeeway error", threw.code, .invalidLeeway) }
            case .addObserver:
                let id = model.addHandler()
                tokens[id] = timer.addObserver { log.record(.tick(handler: id, $0)) }
            case .removeObserver(let id):
                let removed = tokens[id].map { timer.removeObserver($0) } ?? false
                agree("removeObserver(h\(id))", removed, model.removeHandler(id))
            case .advance(let duration):
                clock.advance(by: duration)
                model.advance(by: duration)
            case .suspend(let duration):
                clock.suspend(for: duration)
                model.suspend(for: duration)
            case .adjustWallClock(let offset):
                clock.adjustWallClock(by: offset)
                model.adjustWallClock(by: offset)
            }
            let events = model.takeEvents()
            agree("delivered", log.take(), events)
            outcome.ticks += events.count
            agree("state", timer.state, model.phase)
            agree("fireCount", timer.fireCount, model.fireCount)
            agree("remainingCount", timer.remainingCount, model.remainingCount)
            agree("timeUntilNextTick", timer.timeUntilNextTick, model.timeUntilNextTick)
            agree("interval", timer.schedule.interval, model.isOneShot ? nil : model.interval)
            agree("leeway", timer.leeway, model.leeway)
            agree("pending deadlines", clock.pendingCount, model.pendingActions)
            for key in TimerClock.allCases { agree("now(\(key))", clock.now(key), model.now[key]!) }
            if !mismatches.isEmpty {
                outcome.failure = "step \(step) (\(operation)): " + mismatches.joined(separator: "; ")
                return outcome
            }
            step += 1
        }
        return outcome
    }

    /// Replays a fixed list of operations.
    static func replay(_ setup: TimerSetup, modelSetup: TimerSetup? = nil, _ operations: [TimerOperation]) -> Outcome {
        run(setup, modelSetup: modelSetup) { _, step in step < operations.count ? operations[step] : nil }
    }

    /// Removes operations one at a time while the sequence still fails, for a short failure report.
    static func shrink(
        _ setup: TimerSetup,
        modelSetup: TimerSetup? = nil,
        _ operations: [TimerOperation],
        budget: Int = 2_000
    ) -> Outcome {
        var best = replay(setup, modelSetup: modelSetup, operations)
        guard best.failure != nil else { return best }
        var attempts = 0
        var index = 0
        while index < best.operations.count, attempts < budget {
            var candidate = best.operations
            candidate.remove(at: index)
            attempts += 1
            let outcome = replay(setup, modelSetup: modelSetup, candidate)
            if outcome.failure != nil {
                best = outcome
            } else {
                index += 1
            }
        }
        return best
    }
}

/// Collects what handlers observed (they may run on another thread).
final class ModelEventLog: Sendable {
    private let events = TempoMutex<[TimerModel.Event]>([])

    func record(_ event: TimerModel.Event) {
        events.withLock { $0.append(event) }
    }

    func take() -> [TimerModel.Event] {
        events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}
