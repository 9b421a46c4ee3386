// The browser test's app (issue #45): the jobs page of two jobs, mounted at /ops/jobs behind HTTP Basic
// authentication, on a store in memory or on PostgreSQL. Not a product.
//
// tempo-page-demo --password SECRET [--port P] [--every-ms MS] [--socket PATH --database DB] [--lease-ms MS]
//
// The user is `operator`. Without --socket the store is an InMemoryJobStore. The jobs `refresh-cache` and
// `send-digest` run every MS (default 1,000) milliseconds; every third run of `refresh-cache` fails with an error
// whose text holds markup ("upstream returned <503 Service Unavailable>"), which the page must show escaped.
// Prints "listening on http://127.0.0.1:PORT/ops/jobs" (flushed) once the server accepts connections (--port 0, the
// default, takes a free port), and stops on SIGTERM or SIGINT. Built with the traits Dashboard and Postgres only
// (otherwise it says so and exits 2).
#if Dashboard && Postgres
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TempoJobs
import TempoJobsPage
import TempoPostgres

let options = try DemoOptions(CommandLine.arguments.dropFirst())
var logger = Logger(label: "tempo-page-demo")
logger.logLevel = .critical  // the runs' failures are on the page; the log would only repeat them

var services: [any Service] = []
let store: any JobControlStore
let coordinator: any JobCoordinator
if let socket = options.socket {
    let client = PostgresClient(
        configuration: .init(unixSocketPath: socket, username: "tempo", password: nil, database: options.database),
        backgroundLogger: logger)
    // The client runs until the process exits (a PostgresClient runs once).
    Task { await client.run() }
    try await PostgresSchema.migrate(on: client, logger: logger)
    // The operators' writes are read every half second (the default, 3 s, is for production: under the lease).
    store = try PostgresJobStore(client: client, controlInterval: .milliseconds(500), logger: logger)
    coordinator = try PostgresJobCoordinator(
        client: client, replica: "demo-\(getpid())",
        configuration: .init(lease: .milliseconds(options.leaseMilliseconds)))
} else {
    store = InMemoryJobStore()
    coordinator = LocalJobCoordinator()
}

let scheduler = JobScheduler(
    configuration: .init(gracePeriod: .seconds(2)), store: store, coordinator: coordinator, logger: logger)
let every = Duration.milliseconds(options.everyMilliseconds)
let refreshes = Counter()
try scheduler.register("refresh-cache", .every(every)) { _ in
    if refreshes.next() % 3 == 0 {
        throw DemoError(message: "upstream returned <503 Service Unavailable>")
    }
}
try scheduler.register("send-digest", .every(every)) { _ in }
services.append(scheduler)

let router = Router()
let page = try JobsPage<BasicRequestContext>(
    store: store,
    access: .authenticated(by: BasicAuthenticator(password: options.password)) { _, _ in true },
    configuration: .init(refreshEvery: .seconds(2)))
page.mount(on: router, at: "ops/jobs", logger: logger)
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: options.port)),
    onServerRunning: { channel in
        // Unbuffered: the browser test waits for this line on a pipe.
        FileHandle.standardOutput.write(
            Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)/ops/jobs\n".utf8))
    },
    logger: logger)
services.append(app)
let group = ServiceGroup(
    configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()

/// Lets in requests with HTTP Basic credentials `operator:PASSWORD`; answers 401 with a challenge otherwise.
struct BasicAuthenticator: RouterMiddleware {
    let password: String

    func handle(
        _ request: Request, context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        let expected = "Basic " + Data("operator:\(password)".utf8).base64EncodedString()
        guard request.headers[.authorization] == expected else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: #"Basic realm="tempo jobs""#])
        }
        return try await next(request, context)
    }
}

/// Counts runs from 1.
final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

struct DemoError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The command line's options.
struct DemoOptions {
    var password = ""
    var port = 0
    var everyMilliseconds = 1_000
    var leaseMilliseconds = 2_000
    var socket: String?
    var database = "postgres"

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw DemoError(message: "\(name) needs a value") }
            switch name {
            case "--password": password = value
            case "--port": port = try Self.number(name, value)
            case "--every-ms": everyMilliseconds = try Self.number(name, value)
            case "--lease-ms": leaseMilliseconds = try Self.number(name, value)
            case "--socket": socket = value
            case "--database": database = value
            default: throw DemoError(message: "unknown option \(name)")
            }
        }
        guard !password.isEmpty else { throw DemoError(message: "--password is required") }
    }

    static func number(_ name: String, _ value: String) throws -> Int {
        guard let number = Int(value), number >= 0 else {
            throw DemoError(message: "\(name) takes a number of 0 or more, not \(value)")
        }
        return number
    }
}
#else
import Foundation

print("tempo-page-demo: built without the package traits Dashboard and Postgres")
exit(2)
#endif
