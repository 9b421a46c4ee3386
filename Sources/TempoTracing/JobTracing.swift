import Foundation
public import Instrumentation
import Tempo
public import TempoJobs
public import Tracing

/// Job runs as spans: wrap a job's body with ``traced(tracer:_:)`` where it is registered.
///
/// ```swift
/// try scheduler.register("refresh-cache", .every(.minutes(5)), body: JobTracing.traced { context in
///     try await cache.refresh()
/// })
/// ```
public enum JobTracing {
    /// The attribute keys of a job run's span.
    public enum Attribute {
        /// The job's name (also the span's operation name).
        public static let name = "tempo.job.name"
        /// The date the run was planned for, in seconds since 1970.
        public static let plannedDate = "tempo.job.planned_date"
        /// The attempt, from 1 (a retry is a run of its own, with its own span).
        public static let attempt = "tempo.job.attempt"
        /// How late the run started, in nanoseconds.
        public static let lateness = "tempo.job.lateness_ns"
        /// `succeeded`, `failed` or `cancelled`.
        public static let outcome = "tempo.job.outcome"
    }

    /// Wraps a job's body so that each attempt runs in a span of its own, linked to the span that was current where
    /// this is called (the span that scheduled the job).
    ///
    /// The span's operation name is the job's name; its attributes are those of ``Attribute``. It is the root of a
    /// trace of its own, not a child of the scheduling span: a job registered at startup runs for the life of the
    /// process, and one trace per run keeps traces small; the link leads back to where it was scheduled. Inside the
    /// body, `ServiceContext.current` is the run span's context. An error thrown by the body is recorded on the span,
    /// which then has an error status and the outcome `failed` (`cancelled` for a `CancellationError`), and is
    /// rethrown to the scheduler unchanged.
    ///
    /// - Parameters:
    ///   - tracer: The tracer (default: the one `InstrumentationSystem.bootstrap` installed).
    ///   - body: The job's body.
    /// - Returns: The body to register.
    public static func traced(
        tracer: any Tracer = InstrumentationSystem.tracer,
        _ body: @escaping @Sendable (JobContext) async throws -> Void
    ) -> @Sendable (JobContext) async throws -> Void {
        let scheduling = ServiceContext.current
        return { context in
            try await run(tracer: tracer, scheduling: scheduling, context: context, body: body)
        }
    }

    private static func run<T: Tracer>(
        tracer: T, scheduling: ServiceContext?, context: JobContext,
        body: @Sendable (JobContext) async throws -> Void
    ) async throws {
        let span = tracer.startSpan(context.name, context: .topLevel, ofKind: .internal)
        defer { span.end() }
        if let scheduling { span.addLink(SpanLink(context: scheduling, attributes: [:])) }
        span.attributes[Attribute.name] = context.name
        span.attributes[Attribute.plannedDate] = context.plannedDate.timeIntervalSince1970
        span.attributes[Attribute.attempt] = context.attempt
        // Saturates at Int64's limits (a hand-written `seconds &* 1e9` here wrapped silently on overflow).
        span.attributes[Attribute.lateness] = context.lateness.nanoseconds(rounded: .down)
        do {
            try await ServiceContext.withValue(span.context) { try await body(context) }
            span.attributes[Attribute.outcome] = "succeeded"
        } catch {
            span.attributes[Attribute.outcome] = error is CancellationError ? "cancelled" : "failed"
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
