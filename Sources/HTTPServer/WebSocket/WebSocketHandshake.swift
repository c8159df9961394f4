/// The server's side of the RFC 6455 opening handshake (§4.2): checking a
/// request, and the `Sec-WebSocket-Accept` proof. Pure: no I/O.
///
/// ```swift
/// switch WebSocketHandshake.check(request) {
/// case .refused(let response): return response            // 400, or 426 naming version 13
/// case .accepted(let handshake):
///     guard handshake.offeredProtocols.contains("chat") else { ... }
///     return .webSocketUpgrade(handshake, subprotocol: "chat") { stream in ChatSession(stream) }
/// }
/// ```
///
/// Whether the resource exists, and who may open it, is the application's
/// to decide before or after this check; extensions offered
/// (`Sec-WebSocket-Extensions`, e.g. permessage-deflate) are declined by
/// not naming any in the answer.
public struct WebSocketHandshake: Sendable, Equatable {
    /// The value for `Sec-WebSocket-Accept`.
    public var accept: String
    /// Every subprotocol the client offered (`Sec-WebSocket-Protocol`,
    /// all fields, comma-separated tokens), in the client's order.
    public var offeredProtocols: [String]

    /// The outcome of ``check(_:)``.
    public enum Outcome: Sendable, Equatable {
        case accepted(WebSocketHandshake)
        /// The answer to send instead: a problem+json 400, or 426 with
        /// `Sec-WebSocket-Version: 13`.
        case refused(HTTPResponse)
    }

    /// The version this server speaks.
    public static let version = "13"
    /// The GUID RFC 6455 appends to the key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Checks `request` as an opening handshake: `GET` over HTTP/1.1 or
    /// later, `Upgrade` naming `websocket` and `Connection` naming
    /// `Upgrade` (case-insensitive tokens), exactly one `Sec-WebSocket-Key`
    /// that is base64 of 16 bytes, and `Sec-WebSocket-Version: 13`.
    /// A missing or repeated version, or any other failure, is 400; a
    /// version other than 13 is 426 with `Sec-WebSocket-Version: 13`.
    /// - Complexity: O(header bytes).
    public static func check(_ request: HTTPRequest) -> Outcome {
        func malformed(_ detail: String) -> Outcome {
            .refused(
                .problem(
                    status: 400, slug: "bad-handshake", title: "Malformed WebSocket handshake",
                    detail: detail, requestID: request.requestID))
        }
        guard request.method == "GET" else { return malformed("a WebSocket handshake is a GET, not \(request.method)") }
        guard request.version != .http1_0 else { return malformed("a WebSocket handshake needs HTTP/1.1") }
        guard tokens(request.headers.values("Upgrade")).contains(where: { $0.lowercased() == "websocket" }) else {
            return malformed("Upgrade: websocket is missing")
        }
        guard tokens(request.headers.values("Connection")).contains(where: { $0.lowercased() == "upgrade" }) else {
            return malformed("Connection: Upgrade is missing")
        }
        let versions = request.headers.values("Sec-WebSocket-Version")
        guard versions.count == 1 else {
            return malformed(versions.isEmpty ? "Sec-WebSocket-Version is missing" : "Sec-WebSocket-Version is repeated")
        }
        guard versions[0].trimmedOWS == version else {
            var response = HTTPResponse.problem(
                status: 426, slug: "upgrade-required", title: "Upgrade required",
                detail: "this server speaks WebSocket version 13 only", requestID: request.requestID)
            response.headers.add("Sec-WebSocket-Version", version)
            return .refused(response)
        }
        let keys = request.headers.values("Sec-WebSocket-Key")
        guard keys.count == 1 else {
            return malformed(keys.isEmpty ? "Sec-WebSocket-Key is missing" : "Sec-WebSocket-Key is repeated")
        }
        let key = keys[0].trimmedOWS
        guard WebSocketBase64.decodedLength(key) == 16 else {
            return malformed("Sec-WebSocket-Key must be base64 of 16 bytes")
        }
        let offered = tokens(request.headers.values("Sec-WebSocket-Protocol"))
        return .accepted(WebSocketHandshake(accept: acceptValue(key: String(key)), offeredProtocols: offered))
    }

    /// `base64(SHA-1(key + GUID))`, RFC 6455 §4.2.2 item 5.4.
    public static func acceptValue(key: String) -> String {
        WebSocketBase64.encode(SHA1.digest(Array((key + guid).utf8)))
    }

    /// The comma-separated elements of `fields`, trimmed, empty ones dropped.
    public static func tokens(_ fields: [String]) -> [String] {
        fields.flatMap { $0.split(separator: ",") }.map { String($0.trimmedOWS) }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    var trimmedOWS: Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
