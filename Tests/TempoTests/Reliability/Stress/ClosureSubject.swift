import Synchronization
import Tempo
import TempoLocks

/// A stress subject assembled from closures, so that adding a type to the stress suite is one factory function:
/// its operations, its probes, the objects to track and how to finish.
final class ClosureSubject: StressSubject {
    typealias Operation = (name: String, run: @Sendable (inout SeededGenerator) -> Void)

    let name: String
    let operations: [Operation]
    private let stillWorks: @Sendable () -> [String]
    private let finishing: @Sendable () -> Void
    private let recorder: SubjectRecorder

    init(
        name: String,
        recorder: SubjectRecorder,
        operations: [Operation],
        stillWorks: @escaping @Sendable () -> [String] = { [] },
        finish: @escaping @Sendable () -> Void
    ) {
        self.name = name
        self.recorder = recorder
        self.operations = operations
        self.stillWorks = stillWorks
        self.finishing = finish
    }

    func checkStillWorks() -> [String] { stillWorks() }
    func finish() { finishing() }
    var probes: [HandlerProbe] { recorder.probes }
    var violations: [String] { recorder.violations }
    var tracked: [WeakReference] { recorder.tracked }
}

/// What a subject's operations record: probes, problems and objects that must be released.
final class SubjectRecorder: Sendable {
    private let state = TempoMutex<(probes: [HandlerProbe], violations: [String], tracked: [WeakReference])>(
        ([], [], []))

    var probes: [HandlerProbe] { state.withLock { $0.probes } }
    var violations: [String] { state.withLock { $0.violations } }
    var tracked: [WeakReference] { state.withLock { $0.tracked } }

    @discardableResult
    func probe(_ name: String, checksOverlap: Bool = true) -> HandlerProbe {
        let probe = HandlerProbe(name: name, checksOverlap: checksOverlap)
        state.withLock { $0.probes.append(probe) }
        return probe
    }

    func fail(_ message: String) {
        state.withLock { if $0.violations.count < 20 { $0.violations.append(message) } }
    }

    @discardableResult
    func track<Object: AnyObject>(_ name: String, _ object: Object) -> Object {
        state.withLock { $0.tracked.append(WeakReference(name, object)) }
        return object
    }

    /// Expects `call` to throw a `TempoError` with `code`.
    func expectThrows(_ what: String, _ code: TempoError.Code, _ call: () throws -> Void) {
        do {
            try call()
            fail("\(what) did not throw")
        } catch let error as TempoError {
            if error.code != code { fail("\(what) threw \(error)") }
        } catch {
            fail("\(what) threw an untyped \(error)")
        }
    }
}

/// A value shared by the operations of one subject, under a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: TempoMutex<Value>
    init(_ value: Value) { self.value = TempoMutex(value) }

    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        value.withLock { value in body(&value) }
    }
}
