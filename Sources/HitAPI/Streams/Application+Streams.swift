import HTTPServer
import HitRouting
import HitStore
import SceneCodec

/// `GET /scenes/{id}/stream` (SPEC §11.2): the checks before the upgrade.
extension Application {
    /// The subprotocol every stream speaks.
    static let streamProtocol = "hitroute.v1"
    /// The prefix of the subprotocol that carries a key from a browser
    /// (which cannot set `Authorization` on a WebSocket):
    /// `bearer.<key in base64url, unpadded>`.
    static let bearerProtocolPrefix = "bearer."

    /// Opens a stream on scene `id` once the route's key checks passed,
    /// where `RunWhere` says: a scene this replica does not hold is fetched
    /// on a worker (the server sends a 101 from there as from the loop).
    func openStream(_ id: String, _ request: HTTPRequest, grant: Grant, _ placement: Placement) throws(Problem) -> Step {
        let held = store.residentSnapshot(id)
        guard runsHere(RunWhere.Work(kind: .openStream, snapshot: held, namesScene: true), placement) else {
            return .worker { [self] () throws(Problem) in try openStream(id, request, grant: grant, held: held) }
        }
        return .done(try openStream(id, request, grant: grant, held: held))
    }

    /// The upgrade, or why not: 404 for an unknown scene (before any
    /// upgrade), then the handshake's own checks (400, 426), and 400 when
    /// `hitroute.v1` is not offered. The answer names only `hitroute.v1`.
    private func openStream(_ id: String, _ request: HTTPRequest, grant: Grant, held: SceneSnapshot?) throws(Problem) -> HTTPResponse {
        let snapshot = try self.snapshot(id, held: held)
        switch WebSocketHandshake.check(request) {
        case .refused(let response):
            return response
        case .accepted(let handshake):
            guard handshake.offeredProtocols.contains(Application.streamProtocol) else {
                throw Problem(
                    400, "bad-handshake", "Malformed WebSocket handshake",
                    "offer the subprotocol \(Application.streamProtocol) (Sec-WebSocket-Protocol)")
            }
            let namespace = streams.newNamespace()
            let version = snapshot.version
            let scope = grant.scope
            var stripped = request
            stripped.body = []
            let handshakeRequest = stripped
            let app = self
            return .webSocketUpgrade(handshake, subprotocol: Application.streamProtocol) { stream in
                StreamSession(
                    app: app, stream: stream, sceneID: id, version: version, granted: scope,
                    handshake: handshakeRequest, namespace: namespace)
            }
        }
    }

    /// `request` with the key of a `bearer.<base64url>` subprotocol as its
    /// `Authorization: Bearer` field, when it has no `Authorization` of its
    /// own: the same key checks then apply. A value that is not base64url
    /// of visible ASCII becomes a key that matches none (401 `invalid_token`).
    /// The key is never put in the URL, and no log line carries fields.
    static func liftingBearerProtocol(_ request: HTTPRequest) -> HTTPRequest {
        guard !request.headers.contains("Authorization") else { return request }
        let offered = WebSocketHandshake.tokens(request.headers.values("Sec-WebSocket-Protocol"))
        guard let carried = offered.first(where: { $0.hasPrefix(bearerProtocolPrefix) }) else { return request }
        var request = request
        let key = base64URLDecodedKey(carried.dropFirst(bearerProtocolPrefix.count)) ?? "-"
        request.headers.add("Authorization", "Bearer " + key)
        return request
    }

    /// Unpadded base64url of visible ASCII, decoded; else nil.
    static func base64URLDecodedKey(_ text: Substring) -> String? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        guard !text.contains("+"), !text.contains("/"), !text.contains("=") else { return nil }  // not base64url
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let bytes = try? Base64.decode(standard), !bytes.isEmpty,
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
