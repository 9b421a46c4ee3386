#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoPostgres

/// Runs `body` against a new throwaway server whose schema is migrated; removes the server at the end.
func withMigratedServer<T: Sendable>(
    _ body: @Sendable (PostgresServer, PostgresClient) async throws -> T
) async throws -> T {
    let server = try PostgresServer()
    defer { server.remove() }
    try server.start()
    return try await server.withClient { client in
        try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
        return try await body(server, client)
    }
}

/// The first column of every row of `query`, as integers.
func integers(_ query: PostgresQuery, on client: PostgresClient) async throws -> [Int64] {
    var values: [Int64] = []
    for try await value in try await client.query(query).decode(Int64.self) { values.append(value) }
    return values
}
#endif
