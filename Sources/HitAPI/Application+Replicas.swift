import HTTPServer
import RESPClient

/// SPEC §10: running as one of several replicas over Redis.
extension Application {
    /// The Redis store `--store` asks for, or nil (scenes in memory).
    public static func redisStore(_ configuration: Configuration) -> RedisSceneStore? {
        guard let url = configuration.storeURL,
              let endpoint = RedisEndpoint(url: url, password: configuration.redisPassword)
        else { return nil }
        // A scene document may be as big as the biggest body, plus its id.
        return RedisSceneStore(
            endpoint, cacheBytes: configuration.cacheBytes, limits: configuration.store,
            sceneLimits: configuration.scene, maxBulkBytes: configuration.server.limits.maxBodyBytes * 2 + 4096)
    }

    /// `X-Min-Version: N` on a scene route: the replica's copy is brought to
    /// version N first when it is older. 400 unless N is a positive
    /// integer; 412 when even Redis holds an older version (the write the
    /// client saw was undone by a delete and re-create).
    func awaitMinVersion(_ request: HTTPRequest, _ route: Route) throws(Problem) {
        guard let raw = request.headers["X-Min-Version"] else { return }
        let id: String
        switch route {
        case .scene(let s), .hit(let s), .hits(let s), .layer(let s, _): id = s
        default: return
        }
        guard let n = Int(raw.trimmed), n >= 1 else {
            throw Problem(400, "malformed-request", "Malformed request", "X-Min-Version must be a positive integer, not \(raw.debugDescription)")
        }
        guard let s = try store.snapshot(id, minVersion: n) else { return }  // the route answers 404
        if s.version < n {
            throw Problem(412, "precondition-failed", "Precondition failed",
                          "X-Min-Version \(n): scene \"\(id)\" is at version \(s.version)")
        }
    }

    /// Whether `request` runs on a worker thread rather than the event
    /// loop: anything that may wait on Redis (writes, a scene not in this
    /// replica's cache, `X-Min-Version`, listing). A hit on a cached scene,
    /// pointer phases included, answers on the loop; a drag then makes one
    /// round trip there.
    func needsWorker(_ request: HTTPRequest, _ redis: RedisSceneStore) -> Bool {
        guard let route = Route(path: request.path) else { return false }
        let id: String
        switch route {
        case .healthz, .readyz, .openAPI: return false
        case .scenes: return request.method != "OPTIONS"
        case .scene(let s): if request.method != "GET" && request.method != "HEAD" { return request.method != "OPTIONS" }; id = s
        case .layer(let s, _): if request.method == "PATCH" { return true }; id = s
        case .hit(let s), .hits(let s): id = s
        }
        return !redis.isCached(id) || request.headers.contains("X-Min-Version")
    }
}
