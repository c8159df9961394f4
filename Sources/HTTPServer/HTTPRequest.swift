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
    // Spelt out: a `String?` variable is first set to nil by every
    // initialiser, and that second store keeps the optimiser from building
    // the request in registers (it copies and destroys it whole instead).
    // swift-format-ignore: UseShorthandTypeNames
    public var query: Optional<String>
    public var version: HTTPVersion
    // What the server notes about the request (see `requestID` and
    // `eventLoop`), in the 7 bytes of padding after `version`: the notes
    // add nothing to the request's size, so it is still moved by value
    // without a call to memcpy.
    /// The loop that received the request.
    var tagLoop: UInt8 = 0
    /// Bit 15: an id is assigned; 14: it is the client's `X-Request-Id`;
    /// 13: the handler runs on loop `tagLoop`; 12: the parser scanned the
    /// fields for `HTTPLimits.watchedField`, 11: and found it; 9: the
    /// parser scanned the fields for `Origin`, 10: and found it; bits 0…7:
    /// serial bits 32…39.
    var tagHigh: UInt16 = 0
    /// Serial bits 0…31 of a generated id.
    var tagLow: UInt32 = 0
    public var headers: HTTPHeaders
    /// What ``ServerConfiguration/admitsHead`` noted when it admitted this
    /// request's own head (0 when it was not asked, or noted nothing): an
    /// opaque value the server carries from the head to this request and
    /// never to another request of the connection.
    public var admission: UInt64 = 0
    /// The message body, de-chunked; empty when there is none (or once
    /// released, see `releaseBody()`).
    public var body: [UInt8] {
        get {
            switch storage {
            case .stored(let bytes): return bytes
            case .releasable(let box): return box.bytes.withLock { $0 }
            }
        }
        set { storage = .stored(newValue) }
    }
    /// `body.count`, read without copying the body out.
    var bodyCount: Int {
        switch storage {
        case .stored(let bytes): return bytes.count
        case .releasable(let box): return box.bytes.withLock { $0.count }
        }
    }
    /// The body, or (big, offloaded bodies) the box that holds it instead
    /// when a handler may let it go before the request ends: one word, so
    /// that ``admission`` costs the request no size.
    private var storage: BodyStorage

    private enum BodyStorage {
        case stored([UInt8])
        case releasable(ReleasableBody)
    }

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
        guard case .stored(let bytes) = storage else { return }
        storage = .releasable(ReleasableBody(bytes))
    }

    /// Tells the server the handler has no further use for the body: when
    /// the server made it releasable (big bodies), its memory goes now
    /// instead of after the response, and `body` is empty from then on, in
    /// every copy of the request. Otherwise nothing changes. Read what is
    /// needed of the body (its size, say) before.
    public func releaseBody() {
        guard case .releasable(let box) = storage else { return }
        let bytes = box.bytes.withLock { bytes in
            let taken = bytes
            bytes = []
            return taken
        }
        _ = consume bytes  // freed here, outside the lock, unless someone still reads it
    }

    /// The request's id (SPEC §8): the client's valid `X-Request-Id`, else
    /// one the server generated; the server sends it back in the response's
    /// `X-Request-Id` and writes it in the log. Nil for a request made
    /// in-process, not received.
    public var requestID: RequestID? {
        guard tagHigh & 0x8000 != 0 else { return nil }
        if tagHigh & 0x4000 != 0 {
            return headers.withFirstValue("X-Request-Id") { $0.flatMap { RequestID(given: $0) } }
        }
        return RequestID(loop: Int(tagLoop), serial: UInt64(tagHigh & 0xFF) << 32 | UInt64(tagLow))
    }

    /// The index of the event loop whose thread runs the handler, or nil
    /// on a worker thread (offloaded bodies) or in-process: lets a handler
    /// count into per-loop shards (`CounterCells`) without atomics.
    public var eventLoop: Int? { tagHigh & 0x2000 != 0 ? Int(tagLoop) : nil }

    /// Whether the client sent a valid `X-Request-Id` (set by the parser).
    var hasClientRequestID: Bool { tagHigh & 0x4000 != 0 }

    /// Notes that the client's `X-Request-Id` is valid and is the id.
    mutating func useClientRequestID() { tagHigh = 0xC000 | (tagHigh & 0x1E00) }

    /// Notes what the parser's pass found of `HTTPLimits.watchedField`.
    mutating func noteFieldsScanned(watchedFieldPresent: Bool) {
        tagHigh |= watchedFieldPresent ? 0x1800 : 0x1000
    }

    /// Whether the request may hold the field `HTTPLimits.watchedField`:
    /// false only when the parser looked and found none (a request made in
    /// process was never looked at, so it may).
    public var mayHaveWatchedField: Bool { tagHigh & 0x1000 == 0 || tagHigh & 0x0800 != 0 }

    /// Notes whether the parser's pass found an `Origin` field.
    mutating func noteOriginScanned(present: Bool) {
        tagHigh |= present ? 0x0600 : 0x0200
    }

    /// Whether the request may hold an `Origin` field: false only when the
    /// parser looked and found none (a request made in process may).
    public var mayHaveOrigin: Bool { tagHigh & 0x0200 == 0 || tagHigh & 0x0400 != 0 }

    /// Notes the loop that received the request, a generated id's serial
    /// (unless the client's id is used), and whether the handler runs there.
    mutating func noteLoop(_ loop: Int, serial: UInt64, handlerOnLoop: Bool) {
        tagLoop = UInt8(truncatingIfNeeded: loop)
        if tagHigh & 0x4000 == 0 {
            tagHigh = 0x8000 | (tagHigh & 0x1E00) | UInt16(truncatingIfNeeded: (serial >> 32) & 0xFF)
            tagLow = UInt32(truncatingIfNeeded: serial)
        }
        if handlerOnLoop { tagHigh |= 0x2000 } else { tagHigh &= ~0x2000 }
    }

    /// Notes that the handler runs on a worker thread, not a loop.
    mutating func noteWorkerThread() { tagHigh &= ~0x2000 }

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
        self.init(
            method: method, target: target, path: path, query: query,
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
        self.storage = .stored(body)
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
