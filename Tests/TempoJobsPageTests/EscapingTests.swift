#if Dashboard
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TempoJobs
import TempoJobsPage
import Testing

@Suite struct EscapingTests {
    static let hostileName = #"<script>alert("name")</script>&'"#
    static let hostileError = #"upstream said <script>alert('error')</script> & <img src=x onerror=alert(1)>"#

    @Test func aJobsNameAndItsErrorAreEscapedInEveryView() async throws {
        let fixture = try await PageFixture(jobs: [Self.hostileName])
        try await fixture.recordFailure(of: Self.hostileName, error: Self.hostileError)
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            let overview = try await session.get(PageFixture.path)
            let detail = try await session.get(
                "\(PageFixture.path)/job?name=\(PageSession.formEncoded(Self.hostileName))")
            #expect(detail.status == .ok)
            for page in [overview.text, detail.text] {
                #expect(!page.contains("<script"))
                #expect(!page.contains("<img"))
                #expect(page.contains("&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&amp;&#39;"))
                #expect(page.contains("&lt;script&gt;alert(&#39;error&#39;)&lt;/script&gt; &amp; &lt;img"))
            }
            // The hidden field carries the name escaped, so the button posts the name itself back.
            #expect(detail.text.contains(#"name="job" value="&lt;script&gt;alert(&quot;name&quot;)"#))
            let pause = try await session.press("pause", job: Self.hostileName)
            #expect(pause.status == .seeOther)
        }
        #expect(try await fixture.state(of: Self.hostileName) == .paused)
    }

    @Test func anUnknownJobsNameIsEscaped() async throws {
        let fixture = try await PageFixture()
        try await fixture.app().test(.router) { client in
            var session = PageSession(client: client)
            let view = try await session.get(
                "\(PageFixture.path)/job?name=\(PageSession.formEncoded("<script>x</script>"))")
            #expect(view.status == .notFound)
            #expect(!view.text.contains("<script"))
            #expect(view.text.contains("&lt;script&gt;x&lt;/script&gt;"))
        }
    }
}
#endif
