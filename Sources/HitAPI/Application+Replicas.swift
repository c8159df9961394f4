import HTTPServer
import HitStore

/// SPEC §10: running as one of several replicas over Redis.
extension Application {
    /// The version `X-Min-Version: N` asks of a scene route, when the store
    /// can be behind (``StoreCapabilities/honoursMinVersion``); nil when it
    /// is always current (then only the form is checked) or the route names
    /// no scene. 400 unless N is a positive integer.
    func minVersionAsked(_ request: HTTPRequest, _ route: Route) throws(Problem) -> Int? {
        guard let raw = request.headers["X-Min-Version"], route.sceneID != nil else { return nil }
        if case .render = route { return nil }
        let n = try Application.minVersion(raw)
        return capabilities.honoursMinVersion ? n : nil
    }

    /// Brings the replica's copy of scene `id` to version `n` first when it
    /// is older (a fetch: on a worker). 412 when even the shared store holds
    /// an older version (the write the client saw was undone by a delete
    /// and re-create); a missing scene is left to the route (404).
    func awaitMinVersion(_ n: Int, _ id: String) throws(Problem) {
        guard let s = try stored({ () throws(StoreError) in try store.snapshot(id, minVersion: n) }) else { return }
        if s.version < n {
            throw Problem(
                412, "precondition-failed", "Precondition failed",
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
            throw Problem(
                400, "malformed-request", "Malformed request", "X-Min-Version must be a positive integer, not \(raw.debugDescription)")
        }
        return Int(digits) ?? Int.max
    }
}
