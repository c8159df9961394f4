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
    /// The status code, 200…999. Anything else, 1xx included (this server
    /// does no protocol upgrades), is sent as 500.
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
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
    public static func problem(status: Int, slug: String, title: String, detail: String) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "application/problem+json")]),
            body: ProblemJSON.encode(status: status, slug: slug, title: title, detail: detail))
    }
}
