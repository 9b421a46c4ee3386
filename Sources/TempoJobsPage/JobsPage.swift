#if Dashboard
public import Hummingbird
public import TempoJobs
public import Logging
import Tempo

/// The operator's web page of a job store, mounted on an app's Hummingbird router: every job with its state (active
/// or paused), schedule and next dates; a job's last runs with their replica, duration, attempts, outcome and error;
/// and buttons that pause, resume or run a job now.
///
/// ```swift
/// let page = try JobsPage<BasicRequestContext>(
///     store: store,
///     access: .authenticated(by: OperatorAuthenticator()) { _, context in true }
/// )
/// page.mount(on: router, at: "ops/jobs")
/// ```
///
/// The page is server-rendered HTML without scripts: each view reloads itself every
/// ``Configuration/refreshEvery`` (a `<meta http-equiv="refresh">`), and each button is a form that posts to the
/// page and is redirected back (303 See Other), so a reload never repeats it. Every value the page shows (a job's
/// name, its schedule, a replica's name, an error's text) is HTML-escaped.
///
/// Security: the page answers only requests that its ``Access`` lets in, which the page cannot be created without.
/// Reads are GETs and change nothing; the buttons are POSTs, accepted only from the page itself: a request whose
/// `Sec-Fetch-Site` is not `same-origin`, or whose `Origin` is not the request's own host, is refused (403), and so
/// is one without the page's token (a random value the page sets in a `SameSite=Strict`, `HttpOnly` cookie scoped
/// to its path and repeats in each form; the two must match). Every response of the page forbids scripts, framing
/// and caching (`Content-Security-Policy`, `X-Frame-Options`, `Cache-Control: no-store`).
///
/// Timing: each request reads or writes the store once, on the request's task; what a button changes is honoured by
/// the schedulers as the store's `JobControlStore` says (at once in one process, within one lease on PostgreSQL).
///
/// Thread-safety: `JobsPage` is an immutable `Sendable` value; its routes may serve any number of requests at once.
public struct JobsPage<Context: RequestContext>: Sendable {
    /// Settings of the page.
    ///
    /// `Configuration` is a value type and is `Sendable`.
    public struct Configuration: Sendable {
        /// How often each view reloads itself: a whole number of seconds from 1 to 3,600 (default 5 seconds).
        public var refreshEvery: Duration
        /// How many of a job's last runs its view shows: 1 to 1,000 (default 20). The store keeps at most its own
        /// bound.
        public var historyLimit: Int
        /// The page's title and heading (default "Jobs").
        public var title: String

        /// Creates a configuration; ``JobsPage/init(store:access:configuration:)`` checks it.
        ///
        /// - Parameters:
        ///   - refreshEvery: The reload interval (default 5 s).
        ///   - historyLimit: The runs shown per job (default 20).
        ///   - title: The page's title (default "Jobs").
        public init(refreshEvery: Duration = .seconds(5), historyLimit: Int = 20, title: String = "Jobs") {
            self.refreshEvery = refreshEvery
            self.historyLimit = historyLimit
            self.title = title
        }
    }

    let store: any JobControlStore
    let access: Access
    let configuration: Configuration
    let refreshSeconds: Int

    /// Creates the page of a store.
    ///
    /// - Parameters:
    ///   - store: The store the jobs' schedulers share.
    ///   - access: Who may use the page (no default; see ``Access``).
    ///   - configuration: The page's settings (default ``Configuration/init(refreshEvery:historyLimit:title:)``).
    /// - Throws: ``JobsPageError`` naming the value when ``Configuration/refreshEvery`` is not a whole number of
    ///   seconds from 1 to 3,600 (``JobsPageError/Code/invalidRefreshInterval``) or ``Configuration/historyLimit``
    ///   is not from 1 to 1,000 (``JobsPageError/Code/invalidHistoryLimit``).
    public init(store: any JobControlStore, access: Access, configuration: Configuration = Configuration())
        throws(JobsPageError)
    {
        let (seconds, attoseconds) = configuration.refreshEvery.saturatingComponents
        guard attoseconds == 0, (1...3_600).contains(seconds) else {
            throw JobsPageError(
                .invalidRefreshInterval, value: "\(configuration.refreshEvery)",
                "the page's refresh interval \(configuration.refreshEvery) is not a whole number of seconds from 1 to 3600"
            )
        }
        guard (1...1_000).contains(configuration.historyLimit) else {
            throw JobsPageError(
                .invalidHistoryLimit, value: "\(configuration.historyLimit)",
                "the page's history limit \(configuration.historyLimit) is not from 1 to 1000")
        }
        self.store = store
        self.access = access
        self.configuration = configuration
        self.refreshSeconds = Int(seconds)
    }

    /// Adds the page's routes under `path` of `router`, behind the page's ``Access``: `GET path` (every job),
    /// `GET path/job?name=NAME` (one job and its runs), and the buttons' `POST path/pause`, `path/resume` and
    /// `path/run`. Call it once per path; the routes serve requests as soon as the app runs.
    ///
    /// With ``Access/anyoneWithoutAuthentication`` it logs a warning naming the path, on `logger`.
    ///
    /// - Parameters:
    ///   - router: The app's router, or a group of it.
    ///   - path: Where the page lives under `router` (for example `"ops/jobs"`).
    ///   - logger: Where the warning of a page without authentication goes (default: a logger labelled
    ///     `tempo.jobs-page`).
    public func mount(
        on router: some RouterMethods<Context>, at path: RouterPath,
        logger: Logger = Logger(label: "tempo.jobs-page")
    ) {
        let group = router.group(path)
        if let middleware = access.middleware {
            group.add(middleware: middleware)
        } else {
            logger.warning(
                "the jobs page at \(path) lets anyone who can reach it pause, resume and run jobs (no authentication)")
        }
        group.add(middleware: AccessGate(authorize: access.authorize))
        group.get { request, context in try await overview(request, context) }
        group.get("job") { request, context in try await detail(request, context) }
        group.post("pause") { request, context in try await button(.pause, request, context) }
        group.post("resume") { request, context in try await button(.resume, request, context) }
        group.post("run") { request, context in try await button(.runNow, request, context) }
    }
}
#endif
