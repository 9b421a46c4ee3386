#if Dashboard
import HTTPTypes
import Hummingbird

/// The page's own middleware, after the app's: refuses requests that the access rule refuses (403), and adds the
/// headers that forbid scripts, framing and caching to every response of the page.
struct AccessGate<Context: RequestContext>: RouterMiddleware {
    let authorize: @Sendable (Request, Context) async throws -> Bool

    /// Scripts, plugins, frames and other origins' content are forbidden; the page's own inline style is allowed,
    /// and its forms may post only to the page's origin.
    static var securityHeaders: HTTPFields {
        [
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
            .cacheControl: "no-store",
        ]
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard try await authorize(request, context) else {
            return PageResponse.text(.forbidden, "You may not operate these jobs.")
        }
        var response = try await next(request, context)
        for field in Self.securityHeaders { response.headers[field.name] = field.value }
        return response
    }
}

/// Plain responses of the page.
enum PageResponse {
    /// A plain-text response (errors the page gives before it renders anything), with the security headers.
    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = AccessGate<BasicRequestContext>.securityHeaders
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// An HTML page.
    static func html(_ status: HTTPResponse.Status, _ page: HTML) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: page.text)))
    }

    /// 303 See Other to `location`.
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
#endif
