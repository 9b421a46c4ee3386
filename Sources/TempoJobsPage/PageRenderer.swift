#if Dashboard
import Foundation
import Tempo
import TempoJobs

/// Renders the page's views as HTML; every value from the store goes through `HTML`'s escaping interpolation.
struct PageRenderer {
    let title: String
    let refreshSeconds: Int
    /// The page's path (`""` at the root), for links and form actions.
    let base: String
    /// The token the forms repeat (see `CrossSiteGuard`).
    let token: String
    let now: Date

    /// The view of every job.
    func overview(_ jobs: [JobOverview]) -> HTML {
        let rows: [HTML] = jobs.map { job in
            """
            <tr class="\(job.state.description)"><td><a href="\(jobLink(job.name))">\(job.name)</a></td>\
            <td>\(job.schedule)</td><td>\(state(job.state))\(pending(job.pendingRuns))</td><td>\(dates(job.nextDates, job.state))</td>\
            <td>\(lastRun(job.lastRun))</td><td class="actions">\(buttons(job, back: nil))</td></tr>
            """
        }
        let table: HTML =
            jobs.isEmpty
            ? "<p>No job has been published to this store yet.</p>"
            : """
            <table><thead><tr><th>Job</th><th>Schedule</th><th>State</th><th>Next dates</th><th>Last run</th>\
            <th></th></tr></thead><tbody>\(rows)</tbody></table>
            """
        return document(heading: HTML("\(title)"), body: table)
    }

    /// The view of one job: its state, schedule, next dates, buttons and last runs.
    func detail(_ detail: JobDetail) -> HTML {
        let job = detail.overview
        let runs: [HTML] = detail.history.map { run in
            """
            <tr class="run"><td>\(format(run.plannedDate))</td><td>\(trigger(run.trigger))</td>\
            <td>\(run.replica)</td><td>\(format(run.started))</td><td>\(format(run.duration))</td>\
            <td>\(run.attempts)</td><td class="outcome \(run.outcome.description)">\(run.outcome.description)</td>\
            <td class="error">\(run.error ?? "")</td></tr>
            """
        }
        let history: HTML =
            detail.history.isEmpty
            ? "<p>No run recorded yet.</p>"
            : """
            <table><thead><tr><th>Planned date</th><th>Trigger</th><th>Replica</th><th>Started</th><th>Duration</th><th>Attempts</th>\
            <th>Outcome</th><th>Error</th></tr></thead><tbody>\(runs)</tbody></table>
            """
        let claims: [HTML] = detail.claims.map { claim in
            """
            <tr><td>\(format(claim.plannedDate))</td><td>\(claim.replica)</td><td>\(claim.fencingToken)</td>\
            <td>\(format(claim.leaseUntil))</td></tr>
            """
        }
        let claimsTable: HTML =
            detail.claims.isEmpty
            ? ""
            : """
            <h2>Claims held now</h2><table><thead><tr><th>Planned date</th><th>Replica</th><th>Fencing token</th>\
            <th>Lease until</th></tr></thead><tbody>\(claims)</tbody></table>
            """
        let body: HTML = """
            <p><a href="\(overviewLink)">All jobs</a></p>
            <dl><dt>State</dt><dd>\(state(job.state))\(since(job.stateChangedAt))</dd>\
            <dt>Schedule</dt><dd>\(job.schedule)</dd><dt>Next dates</dt><dd>\(dates(job.nextDates, job.state))</dd>\
            <dt>Run-now requests waiting</dt><dd class="pending">\(job.pendingRuns)</dd>\
            <dt>Published by</dt><dd>\(job.publishedBy) at \(format(job.publishedAt))</dd></dl>
            <div class="actions">\(buttons(job, back: "job"))</div>
            \(claimsTable)
            <h2>Last runs</h2>
            \(history)
            """
        return document(heading: HTML("\(job.name)"), body: body)
    }

    /// The view of a job no scheduler published.
    func unknownJob(_ name: String) -> HTML {
        document(
            heading: "Unknown job",
            body: """
                <p>No scheduler published a job named <code>\(name)</code>.</p>
                <p><a href="\(overviewLink)">All jobs</a></p>
                """)
    }

    /// The view when the store could not be read.
    func failure(reading job: String?, _ error: any Error) -> HTML {
        document(
            heading: "The job store could not be read",
            body: """
                <p class="error">\(String(describing: error))</p>
                <p>The page tries again in \(refreshSeconds) s.</p>
                """)
    }

    // MARK: - Pieces

    var overviewLink: String { base.isEmpty ? "/" : base }

    func jobLink(_ name: String) -> String { "\(base)/job?name=\(HTML.queryValue(name))" }

    func state(_ state: JobState) -> HTML {
        "<span class=\"state \(state.description)\">\(state.description)</span>"
    }

    func since(_ date: Date?) -> HTML {
        date.map { " since \(format($0))" } ?? ""
    }

    func trigger(_ trigger: JobRunTrigger) -> String {
        trigger == .runNow ? "run now" : trigger == .schedule ? "schedule" : trigger.description
    }

    /// The first three dates; while the job is paused, marked as skipped.
    func dates(_ dates: [Date], _ state: JobState) -> HTML {
        guard !dates.isEmpty else { return "none" }
        let list = HTML(trusted: dates.prefix(3).map { HTML.escape(format($0)) }.joined(separator: "<br>"))
        return state == .paused ? "<div class=\"skipped\">\(list)</div><div>skipped while paused</div>" : list
    }

    func pending(_ count: Int) -> HTML {
        count == 0 ? "" : "<div class=\"pending\">\(count) run-now request\(count == 1 ? "" : "s") waiting</div>"
    }

    func lastRun(_ run: JobRunRecord?) -> HTML {
        guard let run else { return "not yet" }
        let error: HTML = run.error.map { "<div class=\"error\">\($0)</div>" } ?? ""
        let outcome = run.outcome.description
        return "<span class=\"outcome \(outcome)\">\(outcome)</span> \(format(run.plannedDate))\(error)"
    }

    /// Pause or resume (by the state), and run now: each a form posting the job's name and the page's token.
    func buttons(_ job: JobOverview, back: String?) -> HTML {
        let toggle = job.state == .paused ? ("resume", "Resume") : ("pause", "Pause")
        return form(action: toggle.0, label: toggle.1, job: job.name, back: back)
            + form(action: "run", label: "Run now", job: job.name, back: back)
    }

    func form(action: String, label: String, job: String, back: String?) -> HTML {
        let backField: HTML = back.map { "<input type=\"hidden\" name=\"back\" value=\"\($0)\">" } ?? ""
        return """
            <form method="post" action="\(base)/\(action)"><input type="hidden" name="job" value="\(job)">\
            <input type="hidden" name="token" value="\(token)">\(backField)\
            <button type="submit" name="do" value="\(action)">\(label)</button></form>
            """
    }

    /// The whole document: its refresh, its style and the time it was rendered.
    func document(heading: HTML, body: HTML) -> HTML {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="refresh" content="\(refreshSeconds)">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>\(HTML(trusted: Self.style))</style></head>
        <body><header><h1>\(heading)</h1><p class="now">\(format(now)) · reloads every \(refreshSeconds) s</p></header>
        <main>\(body)</main></body></html>
        """
    }

    func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true))
            + " UTC"
    }

    func format(_ duration: Duration) -> String {
        let milliseconds = duration.inSeconds * 1_000
        return milliseconds < 1_000
            ? "\((milliseconds * 10).rounded() / 10) ms" : "\((milliseconds / 10).rounded() / 100) s"
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{margin:0}header{margin-bottom:1em}\
        .now{color:#666;margin:.2em 0}table{border-collapse:collapse}th,td{border-bottom:1px solid #ddd;\
        padding:.35em .6em;text-align:left;vertical-align:top}.state{padding:.1em .5em;border-radius:.8em}\
        .state.active{background:#d7f5dd}.state.paused{background:#ffe4b3}.outcome.failed,.outcome.timedOut,\
        .outcome.cancelled,.error{color:#b00020}.outcome.succeeded{color:#17692b}.skipped{color:#888;\
        text-decoration:line-through}form{display:inline;margin-right:.3em}dt{font-weight:bold}\
        dd{margin:0 0 .5em 0}
        """
}

extension HTML {
    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.text + rhs.text) }
}
#endif
