#if Jobs && Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres

/// Connects to the database of `url`, checks its schema, and runs `body` on a `PostgresJobStore` (each call tried
/// once, bounded by 10 s, so a database that is down is reported, exit 75, instead of waited for).
func withPostgresStore(url: String, _ body: @escaping @Sendable (any JobControlStore) async throws -> Void)
    async throws
{
    let configuration = try postgresConfiguration(url)
    let client = PostgresClient(configuration: configuration)
    let running = Task { await client.run() }
    do {
        try await withStore(client: client, url: url, body)
    } catch {
        await end(running)
        throw error
    }
    await end(running)
}

/// Ends the client's `run()` and waits for it, so that no connection is still closing when the process exits.
private func end(_ running: Task<Void, Never>) async {
    running.cancel()
    await running.value
}

private func withStore(
    client: PostgresClient, url: String, _ body: @escaping @Sendable (any JobControlStore) async throws -> Void
) async throws {
    var logger = Logger(label: "tempo.jobs")
    logger.logLevel = .critical
    let limit = Duration.seconds(10)
    let version: Int
    do {
        version = try await withTimeout(limit, orThrow: JobsExit(75, "the database did not answer within \(limit)")) {
            [logger] in
            try await PostgresSchema.checkVersion(on: client, logger: logger)
        }
    } catch let error as JobError {
        throw error
    } catch let error as JobsExit {
        throw JobsExit(75, "cannot reach the database \(redacted(url)): \(error.message)")
    } catch {
        throw JobsExit(75, "cannot reach the database \(redacted(url)): \(String(reflecting: error))")
    }
    guard version > 0 else {
        throw JobsExit(66, "\(redacted(url)): no TempoPostgres tables (no scheduler migrated this database)")
    }
    guard version >= 3 else {
        throw JobsExit(
            65,
            "\(redacted(url)): the schema is version \(version), before the jobs tables (version 3): start a scheduler "
                + "of this TempoPostgres (PostgresSchema.migrate) to migrate it")
    }
    let store = try PostgresJobStore(
        client: client, retry: PostgresRetry(attempts: 1, attemptTimeout: limit), logger: logger)
    try await body(store)
}

/// The client's configuration for `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?host=/socket/folder]`.
func postgresConfiguration(_ text: String) throws -> PostgresClient.Configuration {
    guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
        throw JobsExit(64, "--postgres: '\(redacted(text))' is not a postgres:// URL")
    }
    let user = url.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
    let password = url.password.flatMap { $0.removingPercentEncoding }
    let database = String(url.path.drop { $0 == "/" })
    guard !database.isEmpty else { throw JobsExit(64, "--postgres: '\(redacted(text))' names no database") }
    let port = url.port ?? 5432
    var configuration: PostgresClient.Configuration
    if let folder = url.queryItems?.first(where: { $0.name == "host" })?.value, folder.hasPrefix("/") {
        configuration = PostgresClient.Configuration(
            unixSocketPath: "\(folder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
    } else {
        configuration = PostgresClient.Configuration(
            host: url.host ?? "localhost", port: port, username: user, password: password, database: database,
            tls: .disable)
    }
    configuration.options.connectTimeout = .seconds(5)
    return configuration
}

/// The URL without its password, for messages.
func redacted(_ text: String) -> String {
    guard var url = URLComponents(string: text), url.password != nil else { return text }
    url.password = "***"
    return url.string ?? text
}
#endif
