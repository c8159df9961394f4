/// A response produced by the handler.
///
/// The server adds `Date`, `Content-Length` and `Connection` itself; a
/// handler's own `Content-Length`, `Transfer-Encoding`, `Date` and
/// `Connection` fields are dropped (a `Connection: close` from the handler
/// still closes the connection after the response). Exception: a response
/// to `HEAD` with an empty body keeps the handler's `Content-Length`.
/// Bodies of responses to `HEAD` and of 204 and 304 responses are not
/// sent.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code, 200…999. Anything else, 1xx included, is sent as
    /// 500, but for the `101` of ``webSocketUpgrade(_:subprotocol:headers:session:)``.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The route the request matched, as an index into
    /// ``ServerConfiguration/routeLabels`` (0: none), for the metrics and
    /// the log. Not sent.
    public var routeLabel: Int
    /// Set by ``webSocketUpgrade(_:subprotocol:headers:session:)``: the
    /// connection switches to WebSocket after this response.
    public var upgrade: WebSocketUpgrade?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], routeLabel: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.routeLabel = routeLabel
    }
}

extension HTTPResponse {
    /// An RFC 9457 problem-details response:
    /// `{"type":"/problems/<slug>","title":…,"status":N,"detail":…}` with
    /// `Content-Type: application/problem+json`.
    ///
    /// ```swift
    /// HTTPResponse.problem(status: 413, slug: "payload-too-large",
    ///                      title: "Request body too large", detail: "limit is 16777216 bytes")
    /// ```
    public static func problem(
        status: Int, slug: String, title: String, detail: String, requestID: RequestID? = nil
    ) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/problem+json")]),
            body: ProblemJSON.encode(status: status, slug: slug, title: title, detail: detail, requestID: requestID))
    }
}
