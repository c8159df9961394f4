import HTTPServer
import HitStore

/// Who may send a request, decided before it is handled (SPEC §8): the key
/// and its scope, a tenant key's scenes, and, while the service is open,
/// the browser origin of a request that changes state. The same checks run
/// on a head that announces a body (``admitHead(_:)``: a refusal is sent
/// before any of the body is read or reserved) and on the whole request.
extension Application {
    /// The grant of `request` on `route`, or the problem that refuses it.
    @inline(__always)
    func gate(_ route: Route, method: String, _ request: HTTPRequest) throws(Problem) -> Grant {
        let needed = route.requiredScope(method: method)
        let grant = try access.authorize(request, needs: needed)
        try gateRest(route, method: method, request, needed: needed, grant)
        return grant
    }

    /// The gate's checks after the key's.
    @inline(__always)
    func gateRest(_ route: Route, method: String, _ request: HTTPRequest, needed: Scope?, _ grant: Grant) throws(Problem) {
        if needed == .write { try checkOrigin(request) }
        if grant.scenePrefix != nil { try checkTenant(route, method: method, grant) }
    }

    /// ``ServerConfiguration/admitsHead``: the refusal of a head that
    /// announces a body, or nil to read the body. Requests without a route
    /// or with a method the route does not answer are let through: their
    /// answer needs no key and comes once the body is read.
    /// - Complexity: a route match and, with keys, one key lookup; on an
    ///   open service without `Origin`, one look at the fields.
    /// An admitted head's key is noted in its ``HTTPRequest/admission``: its
    /// request (``gate(_:method:_:)``) takes the key's grant without looking
    /// the key up again.
    public func admitHead(_ head: inout HTTPRequest) -> HTTPResponse? {
        // Open for good, the gate refuses only a foreign `Origin`: without
        // one it cannot refuse, and the request (each hit) skips a second
        // route match.
        if access.isAlwaysOpen, !head.mayHaveOrigin || !head.headers.contains("Origin") { return nil }
        guard let route = Route.matching(head.path) else { return nil }
        let method = MethodName.is(head.method, "HEAD") ? "GET" : head.method
        guard !MethodName.is(method, "OPTIONS"), route.answers(method) else { return nil }
        do {
            let needed = route.requiredScope(method: method)
            let (grant, admission) = try access.authorizeHead(head, needs: needed)
            try gateRest(route, method: method, head, needed: needed, grant)
            head.admission = admission
            return nil
        } catch {
            var response = error.response(requestID: head.requestID)
            response.routeLabel = route.metricsLabel
            addCORS(to: &response, request: head)
            return response
        }
    }

    /// Pointer phases (which may drag) need ``Scope/interact`` and, while
    /// the service is open, a request that is not from a foreign page.
    func requirePointerPhases(_ grant: Scope, _ request: HTTPRequest) throws(Problem) {
        try AccessControl.require(.interact, held: grant)
        try checkOrigin(request)
    }

    /// While the service is open: 403 for a request that carries a browser
    /// `Origin` that is neither the service's own (the origin of `Host`)
    /// nor one named in `--cors-origin` (`*` names none). Called for
    /// requests that change state only; curl and other non-browser
    /// clients send no `Origin`.
    func checkOrigin(_ request: HTTPRequest) throws(Problem) {
        guard access.isOpen, let origin = request.headers["Origin"] else { return }
        if configuration.corsOrigins.contains(origin) { return }
        if let host = request.headers["Host"], BrowserOrigin.isSameAuthority(origin, host: host) { return }
        throw Problem(
            403, "foreign-origin", "Foreign origin",
            "a page on \(origin.prefix(200)) may not change scenes of an open service: name the origin in --cors-origin, or give the service an --api-keys-file"
        )
    }

    /// The snapshot of `id` when `grant` reaches it, else 404 as if absent:
    /// for a scene a request names besides its path's (`diff`'s `against`).
    func snapshot(_ id: String, reachedBy grant: Grant) throws(Problem) -> SceneSnapshot {
        guard grant.reaches(id) else { throw Problem.notFound("no scene \"\(id)\"") }
        return try snapshot(id)
    }

    /// A tenant key reaches only its prefix's scenes: others are 404 (as if
    /// absent, so that their existence does not leak), and a `PUT` of an id
    /// outside the prefix is 403 whether or not it exists. A `POST /scenes`
    /// is checked once its body's id is known (``createScene(_:grant:)``).
    func checkTenant(_ route: Route, method: String, _ grant: Grant) throws(Problem) {
        guard let id = route.sceneID, !grant.reaches(id) else { return }
        if method == "PUT" { throw Application.outsideTenant(grant) }
        throw Problem.notFound("no scene \"\(id)\"")
    }

    /// 403: this key creates only scenes of its prefix.
    static func outsideTenant(_ grant: Grant) -> Problem {
        Problem(
            403, "outside-key-scenes", "Outside this key's scenes",
            "this key creates and replaces only scenes whose id starts with \"\(grant.scenePrefix ?? "")\"")
    }
}

/// `Origin` against `Host`, for ``Application/checkOrigin(_:)``.
enum BrowserOrigin {
    /// Whether `origin` (`scheme://host[:port]`) names the same authority as
    /// a `Host` value, ASCII case-insensitively, a default port (80 for
    /// http, 443 for https) written or not.
    static func isSameAuthority(_ origin: String, host: String) -> Bool {
        let o = origin.lowercased()
        let scheme: String
        let defaultPort: String
        if o.hasPrefix("http://") {
            (scheme, defaultPort) = ("http://", ":80")
        } else if o.hasPrefix("https://") {
            (scheme, defaultPort) = ("https://", ":443")
        } else {
            return false  // "null", file:, extensions: never this service's pages
        }
        func normalized(_ authority: Substring) -> Substring {
            authority.hasSuffix(defaultPort) ? authority.dropLast(defaultPort.count) : authority
        }
        return normalized(o.dropFirst(scheme.count)) == normalized(Substring(host.lowercased()))
    }
}

extension Route {
    /// The scene a route names, if any (every new route with a scene id
    /// must say so here: tenant keys are checked through it).
    var sceneID: String? {
        switch self {
        case .scene(let id), .hit(let id), .hits(let id), .render(let id), .audit(let id), .diff(let id), .stream(let id): return id
        case .layer(let scene, _), .reach(let scene, _): return scene
        case .healthz, .readyz, .openAPI, .metrics, .scenes, .index, .asset: return nil
        }
    }
}
