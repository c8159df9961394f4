import Synchronization

/// A complete HTTP request as the handler sees it.
///
/// The server fills every field from the wire; `body` is already
/// de-chunked. Nothing is percent-decoded.
public struct HTTPRequest: Sendable, Equatable {
    /// The method as sent, e.g. `"GET"` (case-sensitive; always one of
    /// GET HEAD POST PUT DELETE PATCH OPTIONS TRACE CONNECT).
    public var method: String
    /// The raw request-target, e.g. `"/scenes/a/hit?x=1"`.
    public var target: String
    /// The target's path: the part before `?`, not percent-decoded. For an
    /// absolute-form target (`http://host/p?q`) the path after the
    /// authority (`/p`, or `/` when empty); `*` and authority-form targets
    /// are kept whole.
    public var path: String
    /// The part after the first `?`, raw; `nil` when there is no `?`.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The message body, de-chunked; empty when there is none (or once
    /// released, see `releaseBody()`).
    public var body: [UInt8] {
        get { releasable.map { $0.bytes.withLock { $0 } } ?? storedBody }
        set {
            storedBody = newValue
            releasable = nil
        }
    }
    private var storedBody: [UInt8]
    /// Holds the body instead of `storedBody` when a handler may let it go
    /// before the request ends (big, offloaded bodies).
    private var releasable: ReleasableBody?

    /// A body that whoever holds the request can drop for all its copies.
    private final class ReleasableBody: Sendable {
        let bytes: Mutex<[UInt8]>
        init(_ bytes: [UInt8]) { self.bytes = Mutex(bytes) }
    }

    /// Hands the body over to a box that `releaseBody()` can empty: the
    /// request's copies share it. The server does this for the bodies it
    /// offloads, so that a handler done with a big body can free it while
    /// it still works (e.g. before compiling what it decoded).
    mutating func makeBodyReleasable() {
        guard releasable == nil else { return }
        releasable = ReleasableBody(storedBody)
        storedBody = []
    }

    /// Tells the server the handler has no further use for the body: when
    /// the server made it releasable (big bodies), its memory goes now
    /// instead of after the response, and `body` is empty from then on, in
    /// every copy of the request. Otherwise nothing changes. Read what is
    /// needed of the body (its size, say) before.
    public func releaseBody() {
        guard let releasable else { return }
        let bytes = releasable.bytes.withLock { bytes in
            let taken = bytes
            bytes = []
            return taken
        }
        _ = consume bytes  // freed here, outside the lock, unless someone still reads it
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query
            && a.version == b.version && a.headers == b.headers && a.body == b.body
    }

    /// Creates a request, deriving `path` and `query` from `target`
    /// (handy for calling a handler in-process, without sockets).
    public init(
        method: String = "GET", target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        let (path, query) = Self.split(target: Array(target.utf8))
        self.init(method: method, target: target, path: path, query: query,
                  version: version, headers: headers, body: body)
    }

    /// Memberwise initialiser.
    public init(
        method: String, target: String, path: String, query: String?,
        version: HTTPVersion, headers: HTTPHeaders, body: [UInt8]
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.storedBody = body
    }

    /// Splits a request-target into path and query as documented on `path`.
    static func split<C: RandomAccessCollection>(target: C) -> (path: String, query: String?)
    where C.Element == UInt8, C.Index == Int {
        let (path, query) = targetRanges(target)
        return (
            path.isEmpty ? "/" : String(decoding: target[path], as: UTF8.self),
            query.map { String(decoding: target[$0], as: UTF8.self) }
        )
    }

    /// The ranges of path and query inside a request-target.
    static func targetRanges<C: RandomAccessCollection>(_ target: C) -> (path: Range<Int>, query: Range<Int>?)
    where C.Element == UInt8, C.Index == Int {
        var pathStart = target.startIndex
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        let pathEnd = question ?? target.endIndex
        if let first = target.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") {
            // absolute-form "scheme://authority/path": skip to the path.
            if let colon = target[..<pathEnd].firstIndex(of: UInt8(ascii: ":")),
               target.distance(from: colon, to: pathEnd) >= 3,
               target[colon + 1] == UInt8(ascii: "/"), target[colon + 2] == UInt8(ascii: "/")
            {
                let authority = colon + 3
                pathStart = target[authority..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd
                if pathStart == pathEnd {
                    // No path: "/" is implied. Represent it with an empty
                    // range; callers substitute "/".
                    return (pathEnd..<pathEnd, question.map { ($0 + 1)..<target.endIndex })
                }
            }
        }
        return (pathStart..<pathEnd, question.map { ($0 + 1)..<target.endIndex })
    }
}
