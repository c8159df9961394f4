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
    /// client saw was undone by a delete and re-create). Without a shared
    /// store only the form is checked: the one process is always current.
    func awaitMinVersion(_ request: HTTPRequest, _ route: Route) throws(Problem) {
        guard let raw = request.headers["X-Min-Version"] else { return }
        let id: String
        switch route {
        case .scene(let s), .hit(let s), .hits(let s), .layer(let s, _): id = s
        default: return
        }
        let n = try Application.minVersion(raw)
        guard honoursMinVersion else { return }  // one process is always current: only the form is checked
        guard let s = try store.snapshot(id, minVersion: n) else { return }  // the route answers 404
        if s.version < n {
            throw Problem(412, "precondition-failed", "Precondition failed",
                          "X-Min-Version \(n): scene \"\(id)\" is at version \(s.version)")
        }
    }
}

extension Application {
    /// The version an `X-Min-Version` value asks for: a positive integer in
    /// decimal digits; one past `Int.max` asks for more than any scene holds.
    /// - Throws: 400 for anything else.
    static func minVersion(_ raw: String) throws(Problem) -> Int {
        let digits = raw.trimmed
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.utf8.contains(where: { $0 != UInt8(ascii: "0") })
        else {
            throw Problem(400, "malformed-request", "Malformed request", "X-Min-Version must be a positive integer, not \(raw.debugDescription)")
        }
        return Int(digits) ?? Int.max
    }
}

extension Problem {
    /// Not an answer: "this request must wait on the store; run it again on
    /// a worker thread" (`HTTPResponse.runOnWorker`). Thrown only on an
    /// event loop, before anything has changed.
    static let runOnWorker = Problem(0, "run-on-worker", "", "")
}

extension Route {
    /// Whether `method` on this route changes scenes (with a remote store,
    /// a round trip: never on an event loop).
    func writes(_ method: String) -> Bool {
        switch self {
        case .healthz, .readyz, .openAPI, .metrics, .index, .asset, .render, .hit, .hits, .audit, .reach, .diff, .stream: return false
        case .scenes: return method == "POST"
        case .scene: return method == "PUT" || method == "DELETE"
        case .layer: return method == "PATCH"
        }
    }
}
