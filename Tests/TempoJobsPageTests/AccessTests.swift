#if Dashboard
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TempoJobs
import TempoJobsPage
import Testing

@Suite struct AccessTests {
    @Test func aRequestWithoutCredentialsGets401AndNoJobs() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            for uri in [PageFixture.path, "\(PageFixture.path)/job?name=nightly-report"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(!response.text.contains("nightly-report"), "\(uri)")
            }
            let post = try await client.execute(
                uri: "\(PageFixture.path)/pause", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "job=nightly-report"))
            #expect(post.status == .unauthorized)
        }
        #expect(try await fixture.state(of: "nightly-report") == .active)
    }

    @Test func anAuthenticatedUserTheRuleRefusesGets403() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var visitor = PageSession(client: client)
            let page = try await visitor.get(PageFixture.path, headers: [.authorization: "Bearer visitor"])
            #expect(page.status == .forbidden)
            #expect(!page.text.contains("nightly-report"))
            // Even with a token of the operator's session, the visitor's button is refused before it is read.
            var operatorSession = PageSession(client: client)
            _ = try await operatorSession.get(PageFixture.path)
            let press = try await operatorSession.press(
                "pause", job: "nightly-report", extra: [.authorization: "Bearer visitor"])
            #expect(press.status == .forbidden)
        }
        #expect(try await fixture.state(of: "nightly-report") == .active)
    }

    @Test func theOperatorSeesEveryJob() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            let page = try await session.get(PageFixture.path)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("nightly-report"))
            #expect(page.text.contains("refresh-cache"))
            #expect(page.text.contains(#"<meta http-equiv="refresh" content="5">"#))
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(session.token?.count == 64)
        }
    }

    @Test func theOpenAccessLetsAnyoneIn() async throws {
        let fixture = try await PageFixture()
        try await fixture.app(access: .anyoneWithoutAuthentication).test(.router) { client in
            let response = try await client.execute(uri: PageFixture.path, method: .get)
            #expect(response.status == .ok)
            #expect(response.text.contains("nightly-report"))
        }
    }

    @Test func aBadSettingIsATypedErrorNamingTheValue() async throws {
        let store = InMemoryJobStore()
        let access = JobsPage<BasicRequestContext>.Access.anyoneWithoutAuthentication
        for refresh in [Duration.milliseconds(500), .milliseconds(1_500), .zero, .seconds(-1), .seconds(3_601)] {
            let error = #expect(throws: JobsPageError.self) {
                try JobsPage(store: store, access: access, configuration: .init(refreshEvery: refresh))
            }
            #expect(error?.code == .invalidRefreshInterval)
            #expect(error?.message.contains("\(refresh)") == true)
        }
        for limit in [0, -3, 1_001] {
            let error = #expect(throws: JobsPageError.self) {
                try JobsPage(store: store, access: access, configuration: .init(historyLimit: limit))
            }
            #expect(error?.code == .invalidHistoryLimit)
            #expect(error?.message.contains("\(limit)") == true)
            #expect(error?.value == "\(limit)")
        }
        _ = try JobsPage(store: store, access: access, configuration: .init(refreshEvery: .seconds(1), historyLimit: 1))
        _ = try JobsPage(
            store: store, access: access, configuration: .init(refreshEvery: .seconds(3_600), historyLimit: 1_000))
    }
}
#endif
