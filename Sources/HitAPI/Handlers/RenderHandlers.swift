import HTTPServer
import HitJSON
import HitRender
import HitRouting
import HitStore
import Playground
import SceneCodec

/// SPEC §7: the scene as SVG, the playground and its files.
extension Application {
    /// `GET /scenes/{id}/render.svg[?x=&y=][&regions=1][&width=][&audit=1][&diff=]`.
    func render(_ id: String, _ request: HTTPRequest, grant: Grant = .all, _ placement: Placement) throws(Problem) -> Step {
        // Every render is written on a worker: one path of 100,000 short
        // commands alone draws megabytes of SVG, which would hold up the
        // hits of every connection on this loop.
        guard runsHere(RunWhere.Work(kind: .render, snapshot: store.residentSnapshot(id), namesScene: true), placement) else {
            return .worker { [self] () throws(Problem) in try render(id, request, grant: grant) }
        }
        return .done(try render(id, request, grant: grant))
    }

    private func render(_ id: String, _ request: HTTPRequest, grant: Grant) throws(Problem) -> HTTPResponse {
        let query: RenderQuery
        do {
            query = try RenderQueryDecoder.decode(request.query)
        } catch {
            throw Problem.invalidRequest(error)
        }
        let snapshot = try self.snapshot(id)
        let other = try query.diff.map { (other) throws(Problem) in try self.snapshot(other, reachedBy: grant) }
        var options = RenderOptions(regions: query.regions, pixelWidth: query.width)
        if let p = query.point {
            options.routed = (p, snapshot.withCompiled { $0.hit(p, trace: true) })
        }
        if let other {
            options.cells = try diffPicture(snapshot.compiled, other.compiled)  // with audit=1 too: the diff is drawn
        } else if query.audit {
            options.cells = try auditPicture(snapshot.compiled)
        }
        let maxBytes = configuration.renderByteLimit
        guard
            let body = SceneRenderer.render(snapshot.live, id: snapshot.id, version: snapshot.version, options: options, maxBytes: maxBytes)
        else {
            throw Problem(
                422, "invalid-request", "Invalid request",
                "the SVG of scene \(snapshot.id) would be longer than --max-render-bytes (\(maxBytes)): ask without regions=1 or a point, or render a smaller scene",
                issues: [ValidationIssue(pointer: "", message: "the render is too long")])
        }
        var h = HTTPHeaders()
        h.set("Content-Type", "image/svg+xml; charset=utf-8")
        h.set("ETag", "\"\(snapshot.version)\"")
        // Opened on its own, the document may run nothing and load nothing.
        h.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
        h.set("X-Content-Type-Options", "nosniff")
        h.set("Cache-Control", "no-cache")
        return HTTPResponse(status: 200, headers: h, body: body)
    }

    /// `GET /`: the playground for a browser (`Accept` names `text/html`),
    /// a small JSON index of the API for everyone else.
    func index(_ request: HTTPRequest) -> HTTPResponse {
        let accept = request.headers["Accept"]?.lowercased() ?? ""
        if accept.contains("text/html"), let page = PlaygroundFiles.file(at: "/index.html") {
            var response = asset(page)
            response.headers.add("Vary", "Accept")
            return response
        }
        var h = HTTPHeaders()
        h.set("Vary", "Accept")
        return json(200, headers: h, capacity: 1024) { w in
            w.beginObject()
            w.field("service")
            w.string("hitroute")
            w.field("openapi")
            w.string("/openapi.yaml")
            w.field("playground")
            w.string("/ (with Accept: text/html)")
            w.field("module")
            w.string("/hitroute.js")
            w.field("routes")
            w.beginArray()
            for route in Application.indexRoutes { w.string(route) }
            w.endArray()
            w.field("examples")
            w.beginArray()
            for file in PlaygroundFiles.all where file.path.hasPrefix("/examples/") { w.string(file.path) }
            w.endArray()
            w.endObject()
        }
    }

    static let indexRoutes = [
        "GET /scenes", "POST /scenes", "GET /scenes/{id}", "PUT /scenes/{id}", "DELETE /scenes/{id}",
        "PATCH /scenes/{id}/layers/{layerId}", "GET /scenes/{id}/hit", "POST /scenes/{id}/hit",
        "POST /scenes/{id}/hits", "GET /scenes/{id}/render.svg", "GET /hitroute.js", "GET /healthz", "GET /readyz",
        "GET /openapi.yaml",
    ]

    /// `PlaygroundFiles.all[k]` (a route matched it).
    func asset(_ k: Int) -> HTTPResponse { asset(PlaygroundFiles.all[k]) }

    /// One of the playground's embedded files, with a policy that lets the
    /// page load and connect to its own origin only, and run no inline script.
    func asset(_ file: PlaygroundFiles.File) -> HTTPResponse {
        var h = HTTPHeaders()
        h.set("Content-Type", file.contentType)
        h.set("Content-Security-Policy", Application.playgroundPolicy)
        h.set("X-Content-Type-Options", "nosniff")
        h.set("Referrer-Policy", "no-referrer")
        h.set("Cache-Control", "no-cache")
        return HTTPResponse(status: 200, headers: h, body: Array(file.text.utf8))
    }

    static let playgroundPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
