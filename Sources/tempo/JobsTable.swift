#if Jobs
import Foundation
import Tempo
import TempoJobs

/// The tables `tempo jobs` prints for people.
enum JobsTable {
    /// A date in UTC, to the millisecond: `2026-11-28T17:55:01.250Z`.
    static func format(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)
                .timeSeparator(.colon).timeZone(separator: .omitted))
    }

    static func format(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        return String(format: "%.2fs", seconds)
    }

    static func overviews(_ jobs: [JobOverview]) -> String {
        var rows = [["JOB", "STATE", "SCHEDULE", "NEXT", "LAST RUN", "OUTCOME", "PENDING", "PUBLISHED BY"]]
        for job in jobs {
            rows.append([
                job.name, job.state.description, job.schedule, job.nextDates.first.map(format) ?? "-",
                job.lastRun.map { "\(format($0.plannedDate)) on \($0.replica)" } ?? "-",
                job.lastRun.map(\.outcome.description) ?? "-", "\(job.pendingRuns)", job.publishedBy,
            ])
        }
        return table(rows)
    }

    static func detail(_ detail: JobDetail) -> String {
        let job = detail.overview
        var lines = [
            "job:          \(job.name)",
            "schedule:     \(job.schedule)",
            "state:        \(job.state)" + (job.stateChangedAt.map { " since \(format($0))" } ?? ""),
            "published by: \(job.publishedBy) at \(format(job.publishedAt))",
            "run-now:      \(job.pendingRuns) pending",
            "next dates:   " + (job.nextDates.isEmpty ? "-" : job.nextDates.map(format).joined(separator: ", ")),
        ]
        if !detail.claims.isEmpty {
            lines.append("")
            var rows = [["CLAIMED DATE", "REPLICA", "TOKEN", "LEASE UNTIL"]]
            for claim in detail.claims {
                rows.append([
                    format(claim.plannedDate), claim.replica, "\(claim.fencingToken)", format(claim.leaseUntil),
                ])
            }
            lines.append(table(rows))
        }
        lines.append("")
        let failures = detail.history.filter { $0.outcome != .succeeded }.count
        lines.append("last \(detail.history.count) runs, newest first (\(failures) failed):")
        var rows = [["PLANNED", "TRIGGER", "REPLICA", "STARTED", "DURATION", "ATTEMPTS", "OUTCOME", "ERROR"]]
        for run in detail.history {
            rows.append([
                format(run.plannedDate), run.trigger.description, run.replica, format(run.started),
                format(run.duration), "\(run.attempts)", run.outcome.description, run.error ?? "",
            ])
        }
        lines.append(table(rows))
        return lines.joined(separator: "\n")
    }

    /// Columns padded to their widest cell, two spaces apart.
    static func table(_ rows: [[String]]) -> String {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
#endif
