#if Dashboard
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TempoJobs
import TempoJobsPage
import Testing

@Suite struct ButtonTests {
    @Test func pauseThenResumeChangeOnlyThatJobsState() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            let pause = try await session.press("pause", job: "nightly-report")
            #expect(pause.status == .seeOther)
            #expect(pause.headers[.location] == PageFixture.path)
            #expect(try await fixture.state(of: "nightly-report") == .paused)
            #expect(try await fixture.state(of: "refresh-cache") == .active)
            let page = try await session.get(PageFixture.path)
            #expect(page.text.contains(#"<span class="state paused">paused</span>"#))
            #expect(page.text.contains(">Resume</button>"))

            let resume = try await session.press("resume", job: "nightly-report")
            #expect(resume.status == .seeOther)
            #expect(try await fixture.state(of: "nightly-report") == .active)
        }
    }

    @Test func runNowAsksForOneRunAndReturnsToTheJobsView() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get("\(PageFixture.path)/job?name=refresh-cache")
            var headers = PageFixture.operatorAuthorization
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            headers[.cookie] = session.cookie
            let response = try await client.execute(
                uri: "\(PageFixture.path)/run", method: .post, headers: headers,
                body: ByteBuffer(string: "job=refresh-cache&token=\(session.token ?? "")&back=job"))
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "\(PageFixture.path)/job?name=refresh-cache")
            let page = try await session.get("\(PageFixture.path)/job?name=refresh-cache")
            #expect(page.text.contains(#"<dd class="pending">1</dd>"#))
        }
        let jobs = try await fixture.store.jobOverviews()
        #expect(jobs.first { $0.name == "refresh-cache" }?.pendingRuns == 1)
        #expect(jobs.first { $0.name == "nightly-report" }?.pendingRuns == 0)
        #expect(jobs.allSatisfy { $0.state == .active })
    }

    @Test func aButtonForAnUnknownJobIs404() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            let response = try await session.press("pause", job: "no-such-job")
            #expect(response.status == .notFound)
            let view = try await session.get("\(PageFixture.path)/job?name=no-such-job")
            #expect(view.status == .notFound)
        }
    }
}
#endif
