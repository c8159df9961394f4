/// Size limits the request parser enforces. Exceeding one is answered with
/// the status named below and the connection is closed; nothing beyond a
/// limit is ever buffered.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line, in bytes: method, target and version, without
    /// the CRLF (RFC 9112's `request-line`). The empty lines a client may
    /// send before it (RFC 9112 §2.2) are bounded by it too. Over it: 414.
    /// Default 8 KiB.
    public var maxRequestLineBytes: Int = 8 * 1024
    /// Largest header block (every field line after the request line, with
    /// the final empty line), in bytes; also bounds a chunked body's
    /// trailer section. Over it: 431. Default 16 KiB.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields in one request (and trailer fields in one chunked
    /// body). Over it: 431. Default 512: the header block's byte limit is
    /// the real bound (16 KiB holds at most ~4,000 of the shortest lines,
    /// `a:` CRLF), so this only stops floods of tiny fields, and lets a
    /// header block of ordinary fields (30 bytes and more) fill its 16 KiB.
    /// nginx and Go cap bytes only (4 × 8 KiB, 1 MiB); Node counts 2,000.
    public var maxHeaderCount: Int = 512
    /// Largest request body, declared (`Content-Length`) or de-chunked.
    /// Over it: 413, sent before the body is read. Default 16 MiB.
    public var maxBodyBytes: Int = 16 * 1024 * 1024
    /// Longest chunk-size line of a chunked body (size, extensions, CRLF).
    /// Over it: 400. Default 4 KiB.
    public var maxChunkLineBytes: Int = 4 * 1024
    /// A field (its name in lowercase ASCII) whose presence the parser
    /// notes in its one pass over the fields (`HTTPRequest.hasWatchedField`),
    /// for an application that asks about it on every request and would
    /// otherwise scan the fields again. Not a limit. Default none. Never one
    /// the parser reads itself (`Host`, `Origin`, `Expect`, `Connection`,
    /// `X-Request-Id`, `Authorization`, `Content-Length`, `Transfer-Encoding`):
    /// such a field is not looked at as the watched one.
    public var watchedField: String = ""
    /// The `Host` names answered (``AllowedHosts``); another is a 403,
    /// before any body is read. Not a limit either. Default ``AllowedHosts/any``.
    public var allowedHosts: AllowedHosts = .any

    /// The defaults documented on each property.
    public init() {}

    public init(
        maxRequestLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 512, maxBodyBytes: Int = 16 * 1024 * 1024,
        maxChunkLineBytes: Int = 4 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }
}
