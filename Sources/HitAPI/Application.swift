import HTTPServer
import HitJSON
import HitMetrics
import HitRouting

/// The hitroute API over HTTP: routes requests to handlers, applies CORS,
/// content-type rules and problem details. The executable and the tests
/// build the service through `Application.makeServer`.
public final class Application: Sendable {
    public let configuration: Configuration
    /// The scenes: memory only, or a durable backend (`SceneStoring`).
    public let store: any SceneStoring
    /// `store` when it is the memory backend: the hit path reads it with a
    /// direct call instead of a protocol one (instructions per hit as before).
    let memoryStore: SceneStore?
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
    /// Whether `X-Min-Version` may make this replica fetch: with a store shared by replicas
    /// (a store in this process is always current, and memory mode's hit
    /// path does not even look for the header).
    let honoursMinVersion: Bool

    public init(
        configuration: Configuration, store: (any SceneStoring)? = nil, access: AccessControl = .open,
        isShuttingDown: @escaping @Sendable () -> Bool = { false }
    ) {
        self.configuration = configuration
        self.store = store ?? SceneStore(limits: configuration.store)
        self.memoryStore = self.store as? SceneStore
        self.access = access
        self.isShuttingDown = isShuttingDown
        let counters = APICounters(loops: configuration.server.eventLoops)
        self.counters = counters
        metrics.register { ServiceMetrics.buildInfo() }
        metrics.register { ServiceMetrics.api(counters) }
        // What the store holds: the memory store's counts (a journal keeps
        // its scenes in one); with Redis, what this replica's cache holds.
        if let held = memoryStore ?? (self.store as? JournalStore)?.memory {
            metrics.register { ServiceMetrics.store(held.stats(), compileTimes: held.compileTimes) }
        } else if let redis = self.store as? RedisSceneStore {
            metrics.register { ServiceMetrics.store(redis.stats(), compileTimes: redis.compileTimes) + ServiceMetrics.cache(of: redis) }
            let statistics = redis.client.statistics
            metrics.register { ServiceMetrics.redis(statistics.snapshot()) }
        }
        metrics.register { ServiceMetrics.access(access) }
        let streams = self.streams
        metrics.register { ServiceMetrics.streams(streams) }
        let store = self.store
        metrics.register { ServiceMetrics.health(of: store) }
        honoursMinVersion = self.store is RedisSceneStore
        var h = HTTPHeaders([("Content-Type", "application/json; charset=utf-8")])
        if configuration.corsOrigins.contains("*") { h.add(contentsOf: Application.corsAnyOrigin) }
        jsonHeaders = h
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
        serverConfiguration.offloadsRequest = Application.isSceneWrite
        serverConfiguration.limits.watchedField = "x-min-version"  // asked of every request: noted while parsing
        serverConfiguration.routeLabels = Route.templates
        serverConfiguration.admitsHead = { head in app.admitHead(head) }
        if let hosts = configuration.allowedHosts { serverConfiguration.limits.allowedHosts = hosts }
        let server = HTTPServer(configuration: serverConfiguration) { request in app.respond(to: request) }
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

    /// Whether a request writes a scene (create, replace, patch): such
    /// bodies are decoded off the event loop from 1 KiB on, since a small
    /// one can hold a PNG mask that decodes to millions of pixels (SPEC §6).
    /// Any write, not only those that seem to hold a mask: JSON escapes
    /// could hide the key from a scan.
    @Sendable static func isSceneWrite(_ request: HTTPRequest) -> Bool {
        switch request.method {
        case "PUT", "PATCH": return true
        case "POST": return request.path == "/scenes"
        default: return false
        }
    }

    /// Answers one request. Never traps on client input: every failure is a problem response.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let matched = Route(path: request.path)
        var response: HTTPResponse
        do {
            response = try route(matched, request)
        } catch {
            if error.status == Problem.runOnWorker.status { return .runOnWorker }
            response = error.response(requestID: request.requestID)
        }
        response.routeLabel = matched?.metricsLabel ?? 0
        addCORS(to: &response, request: request)
        return response
    }

    private func route(_ matched: Route?, _ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        guard let route = matched else {
            if request.path == "*", request.method == "OPTIONS" { return Application.serverOptions }
            throw Problem.notFound("no route \(request.path); see GET /openapi.yaml")
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard route.methods.contains(method) else {
            throw Problem.methodNotAllowed(request.method, allowed: route.methods)
        }
        if method == "OPTIONS" { return preflight(route, request) }
        var request = request
        if case .stream = route { request = Application.liftingBearerProtocol(request) }
        let grant = try gate(route, method: method, request)
        if honoursMinVersion {
            if route.writes(method), LoopThread.isCurrent { throw Problem.runOnWorker }
            try awaitMinVersion(request, route)
        } else if request.mayHaveWatchedField, request.headers.contains("X-Min-Version") {
            try awaitMinVersion(request, route)  // one process is always current: its form is checked, no more
        }
        switch method {
        case "POST", "PUT", "PATCH": try checkContentType(request)
        default: break
        }
        switch (route, method) {
        case (.healthz, _):
            return json(200) { w in w.beginObject(); w.field("status"); w.string("ok"); w.endObject() }
        case (.readyz, _):
            if isShuttingDown() { throw Problem(503, "shutting-down", "Shutting down", "the service is draining and takes no new work") }
            switch store.health() {
            case .ready: break
            case .starting(let why): throw Problem(503, "starting", "Starting", why)
            case .unavailable(let why): throw Problem.storeUnavailable(why)
            }
            return json(200) { w in w.beginObject(); w.field("status"); w.string("ready"); w.endObject() }
        case (.openAPI, _):
            var h = HTTPHeaders()
            h.set("Content-Type", "application/yaml; charset=utf-8")
            return HTTPResponse(status: 200, headers: h, body: Array(OpenAPIDocument.yaml.utf8))
        case (.metrics, _): return scrape(request)
        case (.scenes, "GET"): return try listScenes(grant)
        case (.scenes, _): return try createScene(request, grant: grant)
        case (.scene(let id), "GET"): return try getScene(id)
        case (.scene(let id), "PUT"): return try putScene(id, request)
        case (.scene(let id), _): return try deleteScene(id)
        case (.hit(let id), _): return try hit(id, request, granted: grant.scope)
        case (.hits(let id), _): return try hits(id, request, granted: grant.scope)
        case (.layer(let id, let layer), _): return try patchLayer(id, layer, request)
        case (.index, _): return index(request)
        case (.asset(let k), _): return asset(k)
        case (.render(let id), _): return try render(id, request, grant: grant)
        case (.audit(let id), _): return try audit(id, request)
        case (.reach(let id, let layer), _): return try reach(id, layer, request)
        case (.diff(let id), _): return try diff(id, request, grant: grant)
        case (.stream(let id), _): return try openStream(id, request, grant: grant)
        }
    }

    // MARK: - Shared helpers

    /// A JSON response written by `body`.
    func json(_ status: Int, headers: HTTPHeaders = HTTPHeaders(), capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter(capacity: capacity)
        body(&w)
        var h = headers
        if h.isEmpty { h = jsonHeaders } else { h.add(contentsOf: jsonHeaders) }
        return HTTPResponse(status: status, headers: h, body: w.finish())
    }

    /// SPEC §4: JSON, any `+json`, text/plain, form-urlencoded (curl -d) or none.
    private func checkContentType(_ request: HTTPRequest) throws(Problem) {
        if request.headers.first("Content-Type", is: "application/json") { return }  // the usual case, without a string
        guard let raw = request.headers["Content-Type"] else { return }
        let type = raw.split(separator: ";", maxSplits: 1).first.map { String($0).trimmed.lowercased() } ?? ""
        let accepted = type == "application/json" || type.hasSuffix("+json") || type == "text/plain"
            || type == "application/x-www-form-urlencoded" || type.isEmpty
        guard accepted else {
            throw Problem(415, "unsupported-media-type", "Unsupported media type",
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
        h.set("Access-Control-Allow-Headers", request.headers["Access-Control-Request-Headers"] ?? "Authorization, Content-Type, If-Match, X-Request-Id")
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
        let origins = configuration.corsOrigins
        let any = origins.contains("*")
        let safe = request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS"
        if !any || (access.isOpen && !safe) { response.headers.add("Vary", "Origin") }
        // Handlers set none of these but through `jsonHeaders`, which has them all.
        if response.headers.contains("Access-Control-Allow-Origin") { return }
        if any {
            response.headers.add(contentsOf: Application.corsAnyOrigin)
            return
        }
        if let origin = request.headers["Origin"], origins.contains(origin) {
            response.headers.add("Access-Control-Allow-Origin", origin)
            response.headers.add("Access-Control-Expose-Headers", Application.exposedHeaders)
        }
    }

    /// Runs `body` over the request body's bytes.
    func withBody<T>(_ request: HTTPRequest, _ body: (UnsafeBufferPointer<UInt8>) throws(Problem) -> T) throws(Problem) -> T {
        try request.body.withUnsafeBufferPointer { (buffer) throws(Problem) -> T in try body(buffer) }
    }

    /// The snapshot of scene `id`, or 404.
    func snapshot(_ id: String) throws(Problem) -> SceneSnapshot {
        if let memoryStore {
            guard let s = memoryStore.snapshot(id) else { throw Problem.notFound("no scene \"\(id)\"") }
            return s
        }
        guard let s = try store.snapshot(id) else { throw Problem.notFound("no scene \"\(id)\"") }
        return s
    }
}


/// Lets the handler reach the server it runs in (created after it).
private final class ServerBox: @unchecked Sendable {
    var server: HTTPServer?
}
