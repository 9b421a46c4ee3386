#if Dashboard
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TempoJobs
import TempoJobsPage
import Testing

/// A test app: the page of an `InMemoryJobStore` at `/ops/jobs`, behind a middleware that lets in requests with the
/// header `Authorization: Bearer operator` and answers 401 to others, and a rule that lets in only the user
/// `operator` (a request with `Bearer visitor` is authenticated but refused).
struct PageFixture {
    static let path = "/ops/jobs"
    static let operatorAuthorization: HTTPFields = [.authorization: "Bearer operator"]

    let store: InMemoryJobStore

    init(jobs: [String] = ["nightly-report", "refresh-cache"]) async throws {
        store = InMemoryJobStore()
        for job in jobs {
            try await store.publish(
                JobDescription(
                    name: job, schedule: "every 60.0 seconds", nextDates: [Date() + 60, Date() + 120],
                    replica: "replica-a", publishedAt: Date()))
        }
    }

    /// The app, with `access` (default: the bearer middleware and the operator rule).
    func app(access: JobsPage<BasicRequestContext>.Access? = nil) throws -> some ApplicationProtocol {
        let router = Router()
        let page = try JobsPage(
            store: store,
            access: access ?? .authenticated(by: BearerAuthenticator()) { _, context in context.user == "operator" })
        page.mount(on: router, at: RouterPath(Self.path))
        return Application(router: router)
    }

    /// The state of `job` in the store.
    func state(of job: String) async throws -> JobState? {
        try await store.jobOverviews().first { $0.name == job }?.state
    }

    /// Records a finished run of `job` that failed with `error`.
    func recordFailure(of job: String, error: String) async throws {
        let now = Date()
        try await store.record(
            JobRunRecord(
                job: job, plannedDate: now, trigger: .schedule, replica: "replica-b", started: now,
                ended: now + 0.25, attempts: 3, outcome: .failed, error: error),
            cursor: nil, releasing: TestClaim())
    }
}

/// A claim that holds until released.
struct TestClaim: JobClaim {
    var fencingToken: Int64 { 1 }
    func isHeld() async -> Bool { true }
    func release(succeeded: Bool) async {}
}

/// Lets in requests with `Authorization: Bearer NAME`, recording NAME as the user; answers 401 otherwise.
struct BearerAuthenticator: RouterMiddleware {
    func handle(
        _ request: Request, context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"])
        }
        var context = context
        context.user = String(header.dropFirst("Bearer ".count))
        return try await next(request, context)
    }
}

extension BasicRequestContext {
    /// The user the bearer middleware found (kept in the context's logger metadata, the only free slot of a
    /// `BasicRequestContext`).
    var user: String? {
        get { logger[metadataKey: "user"].map { "\($0)" } }
        set { logger[metadataKey: "user"] = newValue.map { .string($0) } }
    }
}

/// A browser's view of the page: the token cookie the page set, sent back with each later request.
struct PageSession {
    let client: any TestClientProtocol
    var cookie: String?

    /// GETs `uri` as the operator, keeping the token cookie.
    mutating func get(_ uri: String, headers: HTTPFields = PageFixture.operatorAuthorization) async throws
        -> TestResponse
    {
        var headers = headers
        if let cookie { headers[.cookie] = cookie }
        let response = try await client.execute(uri: uri, method: .get, headers: headers)
        if let set = response.headers[.setCookie], let pair = set.split(separator: ";").first {
            cookie = String(pair)
        }
        return response
    }

    /// The token the page's forms carry (the value of the cookie).
    var token: String? { cookie?.split(separator: "=", maxSplits: 1).last.map(String.init) }

    /// POSTs a button's form as the page itself would (same origin), with `extra` headers added or replacing.
    func press(
        _ button: String, job: String, token: String? = nil, extra: HTTPFields = [:], withCookie: Bool = true
    ) async throws -> TestResponse {
        var headers = PageFixture.operatorAuthorization
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
        if withCookie, let cookie { headers[.cookie] = cookie }
        for field in extra { headers[field.name] = field.value }
        let body = "job=\(Self.formEncoded(job))&token=\(token ?? self.token ?? "")"
        return try await client.execute(
            uri: "\(PageFixture.path)/\(button)", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
}
#endif
