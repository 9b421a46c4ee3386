#if Dashboard
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TempoJobs
import TempoJobsPage
import Testing

@Suite struct CrossSiteTests {
    @Test(arguments: ["cross-site", "same-site", "none"])
    func aPostThatTheBrowserMarksAsNotSameOriginIsRefused(site: String) async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            let response = try await session.press(
                "pause", job: "nightly-report", extra: [HTTPField.Name("Sec-Fetch-Site")!: site])
            #expect(response.status == .forbidden)
            #expect(response.text.contains("Sec-Fetch-Site: \(site)"))
        }
        #expect(try await fixture.state(of: "nightly-report") == .active)
    }

    @Test(arguments: ["https://evil.example", "null", "http://localhost.evil.example"])
    func aPostFromAnotherOriginIsRefused(origin: String) async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            let response = try await session.press("pause", job: "nightly-report", extra: [.origin: origin])
            #expect(response.status == .forbidden)
            #expect(response.text.contains("Origin: \(origin)"))
        }
        #expect(try await fixture.state(of: "nightly-report") == .active)
    }

    @Test func aPostWithoutThePageTokenIsRefused() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            // No cookie: what a forged request without the browser's cookie looks like.
            let noCookie = try await session.press("pause", job: "nightly-report", withCookie: false)
            #expect(noCookie.status == .forbidden)
            // The cookie, but a form without the token, or with another one.
            let noToken = try await session.press("pause", job: "nightly-report", token: "")
            #expect(noToken.status == .forbidden)
            let otherToken = try await session.press(
                "pause", job: "nightly-report", token: String(repeating: "ab", count: 32))
            #expect(otherToken.status == .forbidden)
            #expect(otherToken.text.contains("does not match"))
        }
        #expect(try await fixture.state(of: "nightly-report") == .active)
    }

    @Test func aGetChangesNothing() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            _ = try await session.get(PageFixture.path)
            let token = try #require(session.token)
            for button in ["pause", "resume", "run"] {
                let response = try await session.get(
                    "\(PageFixture.path)/\(button)?job=nightly-report&token=\(token)")
                #expect(response.status == .notFound, "\(button)")  // not a route (OperatingJobs article)
            }
            _ = try await session.get("\(PageFixture.path)/job?name=nightly-report")
        }
        let job = try #require(try await fixture.store.jobOverviews().first { $0.name == "nightly-report" })
        #expect(job.state == .active)
        #expect(job.pendingRuns == 0)
    }

    @Test func theTokenCookieIsStrictHttpOnlyAndScopedToThePage() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            let response = try await client.execute(
                uri: PageFixture.path, method: .get, headers: PageFixture.operatorAuthorization)
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=\(PageFixture.path)"))
        }
    }
}
#endif
