import HTTPServer
import HitJSON
import HitMetrics
import HitRouting
import HitStore

/// The hitroute API over HTTP: routes requests to handlers, applies CORS,
/// content-type rules and problem details. The executable and the tests
/// build the service through `Application.makeServer`.
public final class Application: Sendable {
    public let configuration: Configuration
    /// The scenes, in whichever backend `StoreFactory` made (`SceneStoring`).
    public let store: any SceneStoring
    /// What the store can do (read once: it does not change).
    let capabilities: StoreCapabilities
    /// Who may do what (SPEC §8); open without a key file.
    public let access: AccessControl
    /// Open pointer streams by scene, for pushes (SPEC §11.2).
    let streams = StreamHub()
    /// The collectors `GET /metrics` gathers.
    public let metrics = MetricsRegistry()
    /// Points routed, counted per event loop.
    let counters: APICounters
    /// Reports whether the server is draining (for `/readyz`).
    let isShuttingDown: @Sendable () -> Bool
    /// A JSON answer's fields: its content type, and the CORS fields when
    /// every origin is allowed. Built and checked once, shared by answers.
    let jsonHeaders: HTTPHeaders
    /// ``jsonHeaders`` and `Vary: Origin`: what ``addCORS(to:request:)``
    /// makes of them for a request that may change state (every origin
    /// allowed), built once.
    let jsonHeadersVaryingByOrigin: HTTPHeaders
    /// The limits `RunWhere` reads.
    let runLimits: RunWhere.Limits
    /// Whether `--cors-origin` allows every origin (`*`), read once.
    let corsAllowsAny: Bool

    public init(
        configuration: Configuration, store: (any SceneStoring)? = nil, access: AccessControl = .open,
        isShuttingDown: @escaping @Sendable () -> Bool = { false }
    ) {
        self.configuration = configuration
        let store = store ?? StoreFactory.memory(limits: configuration.store)
        self.store = store
        capabilities = store.capabilities
        runLimits = RunWhere.Limits(loopBatchWork: configuration.loopBatchWork)
        self.access = access
        self.isShuttingDown = isShuttingDown
        let counters = APICounters(loops: configuration.server.eventLoops)
        self.counters = counters
        metrics.register { ServiceMetrics.buildInfo() }
        metrics.register { ServiceMetrics.api(counters) }
        // What the store holds (with a shared store, what this replica's
        // cache holds), and a remote store's exchanges.
        metrics.register {
            ServiceMetrics.store(store.stats(), compileTimes: store.compileTimes) + (store.cacheStats.map(ServiceMetrics.cache) ?? [])
        }
        if let statistics = store.remoteStatistics { metrics.register { ServiceMetrics.redis(statistics.snapshot()) } }
        metrics.register { ServiceMetrics.access(access) }
        let streams = self.streams
        metrics.register { ServiceMetrics.streams(streams) }
        metrics.register { ServiceMetrics.health(of: store) }
        // Changes another replica made reach this process's streams (SPEC §11.2).
        store.observeChanges { [streams] change in streams.observe(change) }
        corsAllowsAny = configuration.corsOrigins.contains("*")
        var h = HTTPHeaders([("Content-Type", "application/json; charset=utf-8")])
        if corsAllowsAny { h.add(contentsOf: Application.corsAnyOrigin) }
        jsonHeaders = h
        h.add("Vary", "Origin")
        jsonHeadersVaryingByOrigin = h
    }

    /// The CORS fields that let any origin read an answer.
    static let corsAnyOrigin = HTTPHeaders([("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", exposedHeaders)])
    /// The response fields a browser script may read.
    static let exposedHeaders = "ETag, Location, WWW-Authenticate, X-Request-Id"

    /// An HTTP server running this application (not yet started).
    public static func makeServer(
        _ configuration: Configuration, store: (any SceneStoring)? = nil, access: AccessControl = .open
    ) -> (HTTPServer, Application) {
        let box = ServerBox()
        let app = Application(
            configuration: configuration, store: store, access: access, isShuttingDown: { box.server?.isShuttingDown ?? false })
        var serverConfiguration = configuration.server
        serverConfiguration.limits.watchedField = "x-min-version"  // asked of every request: noted while parsing
        serverConfiguration.routeLabels = Route.templates
        serverConfiguration.admitsHead = { head in app.admitHead(&head) }
        serverConfiguration.admitsHeadsWithoutOrigin = access.isAlwaysOpen
        if let hosts = configuration.allowedHosts { serverConfiguration.limits.allowedHosts = hosts }
        let server = HTTPServer(configuration: serverConfiguration) { request, placement in app.handle(request, on: placement) }
        box.server = server
        app.registerServerMetrics { box.server?.statistics() }
        return (server, app)
    }

    /// Adds the server's families (requests, durations, connections) and
    /// the `process_*` ones to `/metrics`, in that order after the build
    /// info. `statistics` is the running server's
    /// (``HTTPServer/statistics()``); nil leaves the server's out.
    public func registerServerMetrics(_ statistics: @escaping @Sendable () -> ServerStatistics?) {
        metrics.register { statistics().map(ServiceMetrics.http) ?? [] }
        metrics.register(ProcessMetrics())
    }

    /// Answers one request in this process, all of its work here (tools,
    /// tests). Never traps on client input: every failure is a problem response.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        handle(request, on: .worker).answer()
    }

    /// Answers one request that runs on `placement`. On an event loop, a
    /// request that `RunWhere` places on a worker comes back as
    /// `.onWorker` with the rest of its work (the server runs it there);
    /// nothing done before the decision is done again.
    public func handle(_ request: HTTPRequest, on placement: Placement) -> HandlerResult {
        // Unwrapped once, here, and moved on: an optional route is copied
        // and destroyed through generic code, a route by code of its own.
        let found = Route.matching(request.path)
        guard let matched = consume found else { return unrouted(request) }
        return handle(request, routed: matched, placement)
    }

    @inline(never)
    private func handle(_ request: HTTPRequest, routed matched: consuming Route, _ placement: Placement) -> HandlerResult {
        if case .stream = matched { return handle(Application.liftingBearerProtocol(request), matched, placement) }
        return handle(request, matched, placement)
    }

    /// The answer to a request whose path matches no route: `OPTIONS *`, or 404.
    private func unrouted(_ request: HTTPRequest) -> HandlerResult {
        var response =
            request.path == "*" && request.method == "OPTIONS"
            ? Application.serverOptions
            : Problem.notFound("no route \(request.path); see GET /openapi.yaml").response(requestID: request.requestID)
        finish(&response, routeLabel: 0, request)
        return .response(response)
    }

    @inline(__always)
    private func handle(_ request: HTTPRequest, _ matched: Route, _ placement: Placement) -> HandlerResult {
        let step: Step
        let routeLabel = matched.metricsLabel
        do {
            step = try route(matched, request, placement)
        } catch {
            var response = error.response(requestID: request.requestID)
            finish(&response, routeLabel: routeLabel, request)
            return .response(response)
        }
        // Consumed: the answer moves out of the step (no copy of its
        // fields and body, no destroy of the step after).
        switch consume step {
        case .done(var response):
            finish(&response, routeLabel: routeLabel, request)
            return .response(response)
        case .worker(let work):
            return .onWorker { [self] in
                var response: HTTPResponse
                do throws(Problem) {
                    response = try work()
                } catch {
                    response = error.response(requestID: request.requestID)
                }
                finish(&response, routeLabel: routeLabel, request)
                return response
            }
        }
    }

    /// A handler's outcome: its answer, or the rest of its work for a worker.
    enum Step {
        case done(HTTPResponse)
        case worker(@Sendable () throws(Problem) -> HTTPResponse)

        /// The answer, running the rest of the work here.
        func answerHere() throws(Problem) -> HTTPResponse {
            switch self {
            case .done(let r): return r
            case .worker(let work): return try work()
            }
        }
    }

    /// Whether `work` runs here: always on a worker; on a loop, where `RunWhere` says.
    @inline(__always)
    func runsHere(_ work: @autoclosure () -> RunWhere.Work, _ placement: Placement) -> Bool {
        placement == .worker || runsOnLoop(work())
    }

    /// Whether ``RunWhere`` puts `work` on the event loop.
    @inline(__always)
    func runsOnLoop(_ work: borrowing RunWhere.Work) -> Bool {
        RunWhere.decide(work, capabilities: capabilities, limits: runLimits) == .loop
    }

    /// Labels the answer with its route and adds the CORS fields.
    @inline(__always)
    private func finish(_ response: inout HTTPResponse, routeLabel: Int, _ request: HTTPRequest) {
        response.routeLabel = routeLabel
        addCORS(to: &response, request: request)
    }

    private func route(_ route: Route, _ request: HTTPRequest, _ placement: Placement) throws(Problem) -> Step {
        let sent = MethodName.bit(request.method)
        let asked = sent == MethodName.head ? MethodName.get : sent
        let method = sent == MethodName.head ? "GET" : request.method
        guard asked & route.methodSet != 0 else {
            throw Problem.methodNotAllowed(request.method, allowed: route.methods)
        }
        if asked == MethodName.options { return .done(preflight(route, request)) }
        let grant = try gate(route, method: method, request)
        var minVersion: Int?
        if request.mayHaveWatchedField, request.headers.contains("X-Min-Version") {
            minVersion = try minVersionAsked(request, route)  // a store in one process is always current: its form is checked, no more
        }
        if asked & (MethodName.post | MethodName.put | MethodName.patch) != 0 {
            try checkContentType(request)
        }
        if let minVersion, let id = route.sceneID {  // (nil for a render: see `minVersionAsked`)
            // Fetching a newer copy waits on the shared store: where `RunWhere` says.
            let work = RunWhere.Work(kind: .readScene, snapshot: store.residentSnapshot(id), namesScene: true, minVersion: minVersion)
            if !runsHere(work, placement) {
                return .worker { [self] () throws(Problem) in
                    try awaitMinVersion(minVersion, id)
                    return try answer(route, method, request, grant, .worker).answerHere()
                }
            }
            try awaitMinVersion(minVersion, id)
        }
        return try answer(route, method, request, grant, placement)
    }

    /// The route's answer, on `placement` (handlers that read a scene ask
    /// `RunWhere` themselves, once they know what the work is).
    @inline(__always)
    private func answer(_ route: Route, _ method: String, _ request: HTTPRequest, _ grant: Grant, _ placement: Placement) throws(Problem)
        -> Step
    {
        switch (route, method) {
        case (.healthz, _):
            return .done(
                json(200) { w in
                    w.beginObject()
                    w.field("status")
                    w.string("ok")
                    w.endObject()
                })
        case (.readyz, _):
            if isShuttingDown() { throw Problem(503, "shutting-down", "Shutting down", "the service is draining and takes no new work") }
            switch store.health() {
            case .ready: break
            case .starting(let why): throw Problem(503, "starting", "Starting", why)
            case .unavailable(let why): throw Problem(StoreError.unavailable(why))
            }
            return .done(
                json(200) { w in
                    w.beginObject()
                    w.field("status")
                    w.string("ready")
                    w.endObject()
                })
        case (.openAPI, _):
            var h = HTTPHeaders()
            h.set("Content-Type", "application/yaml; charset=utf-8")
            return .done(HTTPResponse(status: 200, headers: h, body: Array(OpenAPIDocument.yaml.utf8)))
        case (.metrics, _): return .done(scrape(request))
        case (.scenes, "GET"): return try listScenes(grant, placement)
        case (.scenes, _): return try createScene(request, grant: grant, placement)
        case (.scene(let id), "GET"): return try getScene(id, placement)
        case (.scene(let id), "PUT"): return try putScene(id, request, placement)
        case (.scene(let id), _): return try deleteScene(id, placement)
        case (.hit(let id), _): return try hit(id, request, granted: grant.scope, placement)
        case (.hits(let id), _): return try hits(id, request, granted: grant.scope, placement)
        case (.layer(let id, let layer), _): return try patchLayer(id, layer, request, placement)
        case (.index, _): return .done(index(request))
        case (.asset(let k), _): return .done(asset(k))
        case (.render(let id), _): return try render(id, request, grant: grant, placement)
        case (.audit(let id), _): return try audit(id, request, placement)
        case (.reach(let id, let layer), _): return try reach(id, layer, request, placement)
        case (.diff(let id), _): return try diff(id, request, grant: grant, placement)
        case (.stream(let id), _): return try openStream(id, request, grant: grant, placement)
        }
    }

    // MARK: - Shared helpers

    /// A JSON response written by `body`, with ``jsonHeaders`` (shared, not copied).
    func json(_ status: Int, capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> HTTPResponse {
        json(status, fields: jsonHeaders, capacity: capacity, body)
    }

    /// A JSON response written by `body`, with `headers` then ``jsonHeaders``.
    func json(_ status: Int, headers: HTTPHeaders, capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> HTTPResponse {
        guard !headers.isEmpty else { return json(status, capacity: capacity, body) }
        var h = headers
        h.add(contentsOf: jsonHeaders)
        return json(status, fields: h, capacity: capacity, body)
    }

    /// A JSON response written by `body` whose fields are `fields`, whole.
    @inline(__always)
    func json(_ status: Int, fields: consuming HTTPHeaders, capacity: Int, _ body: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter(capacity: capacity)
        body(&w)
        return HTTPResponse(status: status, headers: fields, body: w.finish())
    }

    /// The fields ``addCORS(to:request:)`` leaves on a JSON answer to
    /// `request` (``jsonHeaders`` or ``jsonHeadersVaryingByOrigin``, shared):
    /// an answer built with them is left as it is.
    func jsonHeaders(answering request: HTTPRequest) -> HTTPHeaders {
        corsAllowsAny && Application.mayChangeState(request) && access.isOpen ? jsonHeadersVaryingByOrigin : jsonHeaders
    }

    /// Whether `request`'s method may change state (not GET, HEAD or OPTIONS).
    @inline(__always)
    static func mayChangeState(_ request: HTTPRequest) -> Bool {
        MethodName.bit(request.method) & (MethodName.get | MethodName.head | MethodName.options) == 0
    }

    /// SPEC §4: JSON, any `+json`, text/plain, form-urlencoded (curl -d) or none.
    private func checkContentType(_ request: HTTPRequest) throws(Problem) {
        if request.headers.first("Content-Type", is: "application/json") { return }  // the usual case, without a string
        guard let raw = request.headers["Content-Type"] else { return }
        let type = raw.split(separator: ";", maxSplits: 1).first.map { String($0).trimmed.lowercased() } ?? ""
        let accepted =
            type == "application/json" || type.hasSuffix("+json") || type == "text/plain"
            || type == "application/x-www-form-urlencoded" || type.isEmpty
        guard accepted else {
            throw Problem(
                415, "unsupported-media-type", "Unsupported media type",
                "Content-Type \(raw) is not accepted; send application/json")
        }
    }

    /// `OPTIONS *` (RFC 9110 §9.3.7): the methods the server answers somewhere.
    static let serverOptions: HTTPResponse = {
        var h = HTTPHeaders()
        h.set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        return HTTPResponse(status: 204, headers: h)
    }()

    private func preflight(_ route: Route, _ request: HTTPRequest) -> HTTPResponse {
        var h = HTTPHeaders()
        h.set("Allow", route.methods.joined(separator: ", "))
        h.set("Access-Control-Allow-Methods", route.methods.joined(separator: ", "))
        h.set(
            "Access-Control-Allow-Headers",
            request.headers["Access-Control-Request-Headers"] ?? "Authorization, Content-Type, If-Match, X-Request-Id")
        h.set("Vary", "Access-Control-Request-Headers")  // echoed above
        h.set("Access-Control-Max-Age", "600")
        return HTTPResponse(status: 204, headers: h)
    }

    /// With `*`, every answer carries the same CORS fields. With a list of
    /// origins, whether an answer may be read depends on the request's
    /// `Origin`, so every answer says `Vary: Origin` (a shared cache must not
    /// hand one origin's answer, or one without `Origin`, to another). So
    /// does, while the service is open, every answer to a method that may
    /// change state: a foreign page's is refused (``checkOrigin(_:)``).
    func addCORS(to response: inout HTTPResponse, request: HTTPRequest) {
        let any = corsAllowsAny
        let safe = !Application.mayChangeState(request)
        let varies = !any || (!safe && access.isOpen)
        if any {
            // A JSON answer's fields as built once: the same bytes as below, no copy made.
            if varies, response.headers.sharesStorage(with: jsonHeadersVaryingByOrigin) { return }  // `jsonHeaders(answering:)`
            if response.headers.sharesStorage(with: jsonHeaders) {
                if varies { response.headers = jsonHeadersVaryingByOrigin }
                return
            }
            if !varies, response.headers.sharesStorage(with: jsonHeadersVaryingByOrigin) {
                response.headers = jsonHeaders
                return
            }
        }
        if varies { response.headers.add("Vary", "Origin") }
        // Handlers set none of these but through `jsonHeaders`, which has them all.
        if response.headers.contains("Access-Control-Allow-Origin") { return }
        if any {
            response.headers.add(contentsOf: Application.corsAnyOrigin)
            return
        }
        if let origin = request.headers["Origin"], configuration.corsOrigins.contains(origin) {
            response.headers.add("Access-Control-Allow-Origin", origin)
            response.headers.add("Access-Control-Expose-Headers", Application.exposedHeaders)
        }
    }

    /// Runs `body` over the request body's bytes.
    func withBody<T>(_ request: HTTPRequest, _ body: (UnsafeBufferPointer<UInt8>) throws(Problem) -> T) throws(Problem) -> T {
        try request.body.withUnsafeBufferPointer { (buffer) throws(Problem) -> T in try body(buffer) }
    }

    /// The snapshot of scene `id` (`held`, when the decision took it
    /// already), or 404. May fetch (a shared store's miss): on a worker.
    func snapshot(_ id: String, held: consuming SceneSnapshot? = nil) throws(Problem) -> SceneSnapshot {
        if let held = consume held { return held }
        guard let s = try stored({ () throws(StoreError) in try store.snapshot(id) }) else { throw Problem.notFound("no scene \"\(id)\"") }
        return s
    }

    /// Runs a store operation; its failure becomes a problem (`Problem(_: StoreError)`).
    @inline(__always)
    func stored<T>(_ body: () throws(StoreError) -> T) throws(Problem) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            throw Problem(error)
        }
    }

    /// The loop whose counter shards a handler on `placement` may write
    /// (`APICounters`): none off the loop.
    func loopShard(_ request: HTTPRequest, _ placement: Placement) -> Int? {
        placement == .loop ? request.eventLoop : nil
    }
}

/// Lets the handler reach the server it runs in (created after it).
private final class ServerBox: @unchecked Sendable {
    var server: HTTPServer?
}
