#if Postgres
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// The product creates its tables and records their version; replicas starting together migrate once.
    @Suite struct SchemaTests {
        @Test func migratingAMigratedDatabaseFindsItsVersionAndChangesNothing() async throws {
            try await withDatabase { _, client in
                // Three replicas migrating at once (the fixture migrated already: they all find version 1).
                let found = try await migrateThreeAtOnce(client)
                #expect(found == [1, 1, 1])
                #expect(try await integers("SELECT version::bigint FROM tempo_schema", on: client) == [1])
            }
        }

        @Test func concurrentFirstMigrationsCreateTheTablesOnceAndRecordTheVersion() async throws {
            try await withDatabase(migrated: false) { _, client in
                let found = try await migrateThreeAtOnce(client)
                #expect(found.sorted() == [0, 1, 1])
                #expect(try await integers("SELECT version::bigint FROM tempo_schema", on: client) == [1])
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM information_schema.tables \
                        WHERE table_name IN ('tempo_claims', 'tempo_cursors')
                        """, on: client) == [2])
            }
        }

        @Test func aNewerSchemaIsRefusedNamingItsVersion() async throws {
            try await withDatabase { _, client in
                try await step("recording version 7") {
                    try await client.query("INSERT INTO tempo_schema (version, applied_at) VALUES (7, now())")
                }
                let error = await #expect(throws: JobError.self) {
                    try await step("migrating") {
                        try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
                    }
                }
                #expect(error?.code == .newerSchema)
                #expect(error?.message.contains("version 7") == true)
            }
        }

        private func migrateThreeAtOnce(_ client: PostgresClient) async throws -> [Int] {
            try await step("three concurrent migrations") {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<3 {
                        group.addTask { try await PostgresSchema.migrate(on: client, logger: Logger(label: "test")) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
    }
}
#endif
