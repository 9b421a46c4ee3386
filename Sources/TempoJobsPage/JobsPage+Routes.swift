#if Dashboard
import Foundation
import Hummingbird
import TempoJobs

extension JobsPage {
    /// A button of the page: the path it posts to and what it does.
    enum Button: String, Sendable {
        case pause, resume
        case runNow = "run"
    }

    /// The fields of a button's form.
    struct ButtonForm: Decodable {
        var job: String
        var token: String?
        /// `job` when the button was on the job's own view (the redirect goes back there).
        var back: String?
    }

    /// The largest form body read (a job's name, a token and a word).
    static var formLimit: Int { 16 * 1024 }

    /// `GET path`: every job.
    func overview(_ request: Request, _ context: Context) async throws -> Response {
        let base = Self.basePath(of: request, routeComponents: 0)
        let (token, isNew) = CrossSiteGuard.token(of: request)
        let renderer = PageRenderer(
            title: configuration.title, refreshSeconds: refreshSeconds, base: base, token: token, now: Date())
        var response: Response
        do {
            response = PageResponse.html(.ok, renderer.overview(try await store.jobOverviews()))
        } catch {
            response = PageResponse.html(.serviceUnavailable, renderer.failure(reading: nil, error))
        }
        if isNew { response.setCookie(CrossSiteGuard.cookie(token, path: base)) }
        return response
    }

    /// `GET path/job?name=NAME`: one job and its last runs.
    func detail(_ request: Request, _ context: Context) async throws -> Response {
        let base = Self.basePath(of: request, routeComponents: 1)
        guard let name = request.uri.queryParameters["name"].map(String.init) else {
            return PageResponse.text(.badRequest, "The job's view needs its name: job?name=NAME.")
        }
        let (token, isNew) = CrossSiteGuard.token(of: request)
        let renderer = PageRenderer(
            title: configuration.title, refreshSeconds: refreshSeconds, base: base, token: token, now: Date())
        var response: Response
        do {
            if let detail = try await store.jobDetail(named: name, historyLimit: configuration.historyLimit) {
                response = PageResponse.html(.ok, renderer.detail(detail))
            } else {
                response = PageResponse.html(.notFound, renderer.unknownJob(name))
            }
        } catch {
            response = PageResponse.html(.serviceUnavailable, renderer.failure(reading: name, error))
        }
        if isNew { response.setCookie(CrossSiteGuard.cookie(token, path: base)) }
        return response
    }

    /// `POST path/pause`, `path/resume`, `path/run`: checks that the request comes from the page, then writes.
    func button(_ button: Button, _ request: Request, _ context: Context) async throws -> Response {
        let base = Self.basePath(of: request, routeComponents: 1)
        let body = try await request.body.collect(upTo: Self.formLimit)
        guard let form = try? URLEncodedFormDecoder().decode(ButtonForm.self, from: String(buffer: body)) else {
            return PageResponse.text(.badRequest, "The form needs the field job.")
        }
        if let refusal = CrossSiteGuard.refusal(of: request, formToken: form.token) {
            return PageResponse.text(.forbidden, refusal)
        }
        do {
            switch button {
            case .pause: try await store.pause(job: form.job)
            case .resume: try await store.resume(job: form.job)
            case .runNow: _ = try await store.requestRun(of: form.job)
            }
        } catch let error as JobError where error.code == .unknownJob {
            return PageResponse.text(.notFound, "No scheduler published a job named \(form.job).")
        } catch {
            return PageResponse.text(.serviceUnavailable, "Could not \(button) the job \(form.job): \(error)")
        }
        let back = form.back == "job" ? "\(base)/job?name=\(HTML.queryValue(form.job))" : (base.isEmpty ? "/" : base)
        return PageResponse.seeOther(back)
    }

    /// The page's path: the request's path without a trailing slash and without the route's own components.
    static func basePath(of request: Request, routeComponents: Int) -> String {
        var components = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        components.removeLast(min(routeComponents, components.count))
        return components.isEmpty ? "" : "/" + components.joined(separator: "/")
    }
}
#endif
