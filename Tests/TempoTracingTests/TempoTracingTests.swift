import Foundation
import InMemoryTracing
import Instrumentation
import Logging
import Tempo
import TempoJobs
import TempoLocks
import TempoPlans
import TempoTesting
import TempoTracing
import Testing
import Tracing

private enum RequestID: ServiceContextKey {
    typealias Value = String
}

/// TempoTracing against swift-distributed-tracing's `InMemoryTracer`.
@Suite struct TempoTracingTests {
    @Test func theServiceContextCurrentWhereTheTimerWasArmedIsCurrentInItsHandler() throws {
        let clock = VirtualClock()
        let seen = TempoMutex<[String?]>([])
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-42"
        let timer = try ServiceContext.withValue(context) {
            try TempoTimer(
                .every(.seconds(1)), scheduler: clock,
                handler: .inCurrentServiceContext { _ in
                    seen.withLock { $0.append(ServiceContext.current?[RequestID.self]) }
                }
            ).start()
        }
        defer { timer.cancel() }
        #expect(ServiceContext.current?[RequestID.self] == nil)
        clock.advance(by: .seconds(2))
        #expect(seen.withLock { $0 } == ["request-42", "request-42"])
    }

    @Test func theServiceContextCurrentWhereThePlanTimerWasMadeIsCurrentInItsHandler() throws {
        let clock = VirtualClock()
        let seen = TempoMutex<[String?]>([])
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-7"
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // VirtualClock's wall start
        let timer = try ServiceContext.withValue(context) {
            try PlanTimer(
                Plan.every(.seconds(1), anchor: start), scheduler: clock,
                handler: .inCurrentServiceContext { _ in
                    seen.withLock { $0.append(ServiceContext.current?[RequestID.self]) }
                })
        }
        timer.start()
        defer { timer.cancel() }
        #expect(ServiceContext.current?[RequestID.self] == nil)
        clock.advance(by: .seconds(2))
        #expect(seen.withLock { $0 } == ["request-7", "request-7"])
    }

    @Test func aJobRunIsASpanWithItsNamePlannedDateAttemptAndOutcomeLinkedToTheSchedulingSpan() async throws {
        let tracer = InMemoryTracer()
        let scheduling = tracer.startSpan("register jobs")
        let body = ServiceContext.withValue(scheduling.context) {
            JobTracing.traced(tracer: tracer) { _ in
                #expect(ServiceContext.current?.inMemorySpanContext != nil)
            }
        }
        scheduling.end()
        let planned = Date(timeIntervalSince1970: 1_800_000_000)
        try await body(
            JobContext(
                name: "refresh-cache", plannedDate: planned, lateness: .milliseconds(3), attempt: 2,
                logger: Logger(label: "test")))
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "refresh-cache" })
        #expect(span.attributes[JobTracing.Attribute.name]?.toSpanAttribute() == .string("refresh-cache"))
        #expect(span.attributes[JobTracing.Attribute.plannedDate]?.toSpanAttribute() == .double(1_800_000_000))
        #expect(span.attributes[JobTracing.Attribute.attempt]?.toSpanAttribute() == .int64(2))
        #expect(span.attributes[JobTracing.Attribute.lateness]?.toSpanAttribute() == .int64(3_000_000))
        #expect(span.attributes[JobTracing.Attribute.outcome]?.toSpanAttribute() == .string("succeeded"))
        #expect(span.status == nil)
        let link = try #require(span.links.first)
        #expect(link.context.inMemorySpanContext?.spanID == scheduling.spanContext.spanID)
        // A trace of its own: not a child of the scheduling span.
        #expect(span.parentSpanID == nil)
    }

    @Test func aLatenessPastInt64NanosecondsSaturatesInsteadOfWrapping() async throws {
        let tracer = InMemoryTracer()
        let body = JobTracing.traced(tracer: tracer) { _ in }
        try await body(
            JobContext(
                name: "late", plannedDate: Date(), lateness: .seconds(Int64.max), attempt: 1,
                logger: Logger(label: "test")))
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "late" })
        // The old `seconds &* 1_000_000_000` wrapped this to a negative number.
        #expect(span.attributes[JobTracing.Attribute.lateness]?.toSpanAttribute() == .int64(.max))
    }

    @Test func aFailedRunRecordsTheErrorAndRethrowsIt() async throws {
        struct Boom: Error {}
        let tracer = InMemoryTracer()
        let body = JobTracing.traced(tracer: tracer) { _ in throw Boom() }
        await #expect(throws: Boom.self) {
            try await body(
                JobContext(name: "flaky", plannedDate: Date(), lateness: .zero, attempt: 1, logger: Logger(label: "t")))
        }
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes[JobTracing.Attribute.outcome]?.toSpanAttribute() == .string("failed"))
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
        #expect(span.links.isEmpty)
    }
}
