#if Postgres
import Logging
import PostgresNIO
import TempoPostgres
import Testing

/// The product creates its tables and records their version; replicas starting together migrate once.
@Suite(.enabled(if: PostgresServer.enabled, PostgresServer.skipMessage))
struct SchemaTests {
    @Test func migratingAnEmptyDatabaseRecordsTheVersionOnceAndAgainChangesNothing() async throws {
        try await withMigratedServer { _, client in
            let logger = Logger(label: "test")
            // Three replicas migrating at once (the fixture migrated already: they all find version 1).
            let found = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 { group.addTask { try await PostgresSchema.migrate(on: client, logger: logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(found == [1, 1, 1])
            #expect(try await integers("SELECT version::bigint FROM tempo_schema", on: client) == [1])
        }
    }

    @Test func concurrentFirstMigrationsCreateTheTablesOnce() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.start()
        try await server.withClient { client in
            let logger = Logger(label: "test")
            let found = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 { group.addTask { try await PostgresSchema.migrate(on: client, logger: logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(found.sorted() == [0, 1, 1])
            #expect(try await integers("SELECT version::bigint FROM tempo_schema", on: client) == [1])
        }
    }

    @Test func aNewerSchemaIsRefusedNamingItsVersion() async throws {
        try await withMigratedServer { _, client in
            try await client.query("INSERT INTO tempo_schema (version, applied_at) VALUES (7, now())")
            let error = await #expect(throws: PostgresJobsError.self) {
                try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
            }
            #expect(error?.code == .newerSchema)
            #expect(error?.message.contains("version 7") == true)
        }
    }
}
#endif
