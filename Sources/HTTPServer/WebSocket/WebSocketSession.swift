/// What an application does with one WebSocket stream. Every method is
/// called on the stream's event-loop thread, one call at a time, so a
/// session needs no locks; none may block.
///
/// A session is made by the factory of ``HTTPResponse/webSocketUpgrade(_:subprotocol:headers:session:)``
/// once the `101` is queued, and lives until ``closed(_:code:)``.
public protocol WebSocketSession: AnyObject {
    /// A whole text message arrived (valid UTF-8, at most
    /// ``WebSocketLimits/maxMessageBytes``). `message` is valid during the
    /// call only. Answers go through `stream.send(text:)`, in any number.
    func received(_ message: UnsafeRawBufferPointer, on stream: WebSocketStream)
    /// Queued bytes were written to the socket: ``WebSocketStream/queuedBytes``
    /// went down. A session that holds messages back while the peer reads
    /// slowly takes them up again here.
    func wrote(_ stream: WebSocketStream)
    /// The stream ended: `code` is the close code sent or received
    /// (``WebSocketCloseCode/abnormal`` when the connection just dropped).
    /// Called once; sends are ignored from then on.
    func closed(_ stream: WebSocketStream, code: WebSocketCloseCode)
}

extension WebSocketSession {
    public func wrote(_ stream: WebSocketStream) {}
    public func closed(_ stream: WebSocketStream, code: WebSocketCloseCode) {}
}

/// The upgrade a handler asks for: the checked handshake, the subprotocol
/// chosen, and how to make the session once the stream is open. Compared
/// by identity.
public final class WebSocketUpgrade: Sendable, Equatable {
    let handshake: WebSocketHandshake
    let subprotocol: String?
    let makeSession: @Sendable (WebSocketStream) -> any WebSocketSession

    init(handshake: WebSocketHandshake, subprotocol: String?, makeSession: @escaping @Sendable (WebSocketStream) -> any WebSocketSession) {
        self.handshake = handshake
        self.subprotocol = subprotocol
        self.makeSession = makeSession
    }

    public static func == (a: WebSocketUpgrade, b: WebSocketUpgrade) -> Bool { a === b }
}

extension HTTPResponse {
    /// A `101 Switching Protocols` answer to a checked handshake: after it
    /// is queued the connection speaks WebSocket frames, and `session`
    /// (called on the loop, with the new stream) receives its messages.
    ///
    /// The answer names `subprotocol` (which must be one the client
    /// offered, or nil for none) and no extension. When the server is at
    /// ``ServerConfiguration/maxStreams`` or shutting down, a 503 problem
    /// is sent instead and the session is never made.
    /// - Parameter headers: more fields for the 101 (CORS, request id...).
    public static func webSocketUpgrade(
        _ handshake: WebSocketHandshake, subprotocol: String?, headers: HTTPHeaders = HTTPHeaders(),
        session: @escaping @Sendable (WebSocketStream) -> any WebSocketSession
    ) -> HTTPResponse {
        var h = HTTPHeaders([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", handshake.accept)])
        if let subprotocol { h.add("Sec-WebSocket-Protocol", subprotocol) }
        h.add(contentsOf: headers)
        var response = HTTPResponse(status: 101, headers: h)
        response.upgrade = WebSocketUpgrade(handshake: handshake, subprotocol: subprotocol, makeSession: session)
        return response
    }
}
