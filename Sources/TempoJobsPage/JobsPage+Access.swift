#if Dashboard
public import Hummingbird

extension JobsPage {
    /// Who may see and steer the jobs: the app's authentication middleware and the rule that says which of its
    /// users are operators, or, loudly, anyone.
    ///
    /// There is no default: ``JobsPage/init(store:access:configuration:)`` takes an `Access`, so an app cannot mount
    /// the page and forget its authentication. Every request to the page, its reads and its buttons alike, runs the
    /// app's middleware first, then `authorizing`; a request that `authorizing` refuses gets 403 Forbidden. A
    /// middleware that answers a request without credentials itself (401 Unauthorized with a challenge) keeps it from
    /// the page altogether.
    ///
    /// `Access` is a value type and is `Sendable`.
    public struct Access: Sendable {
        let middleware: (any MiddlewareProtocol<Request, Response, Context>)?
        let authorize: @Sendable (Request, Context) async throws -> Bool

        /// The page behind the app's authentication: `middleware` runs first on every request of the page (it
        /// authenticates, and may refuse a request itself), then `authorizing` decides whether the request's user
        /// may operate the jobs (`false`: 403 Forbidden). Both run on the request's task, once per request.
        ///
        /// ```swift
        /// access: .authenticated(by: SessionAuthenticator()) { _, context in context.identity?.isOperator == true }
        /// ```
        ///
        /// - Parameters:
        ///   - middleware: The app's authentication middleware (for example hummingbird-auth's authenticators
        ///     followed by its `IsAuthenticatedMiddleware`, or a middleware of the app's own).
        ///   - authorizing: Whether the authenticated request may see and steer the jobs. A middleware that lets
        ///     unauthenticated requests through must be paired with a closure that refuses them.
        /// - Returns: The access.
        public static func authenticated(
            by middleware: some MiddlewareProtocol<Request, Response, Context>,
            authorizing: @escaping @Sendable (Request, Context) async throws -> Bool
        ) -> Access {
            Access(middleware: middleware, authorize: authorizing)
        }

        /// No authentication at all: anyone who can reach the app's port may read every job's history and errors,
        /// pause and resume jobs and run them. For a page reachable only from the operator's own machine (a test, a
        /// port forwarded over SSH). The cross-site checks of the buttons still apply.
        ///
        /// ``JobsPage/mount(on:at:logger:)`` logs a warning naming the path each time it mounts a page with this
        /// access.
        public static var anyoneWithoutAuthentication: Access {
            Access(middleware: nil) { _, _ in true }
        }

        /// Whether this is ``anyoneWithoutAuthentication``.
        var isOpen: Bool { middleware == nil }
    }
}
#endif
