import Glibc

/// Everything the server needs to know before ``HTTPServer/start()``.
///
/// Every timeout is a `Duration`, so tests can use short ones
/// (`.milliseconds(300)`). Timeouts are checked by each event loop every
/// quarter of the shortest timeout (at least every 250 ms, at most every
/// 10 ms), so a connection is closed at most that much after its deadline.
public struct ServerConfiguration: Sendable {
    /// Address to bind, resolved with `getaddrinfo`: a literal IPv4 or IPv6
    /// address (`"::"` listens on every IPv6 and, dual-stack, IPv4
    /// address) or a host name. Default `"127.0.0.1"`.
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks an ephemeral port (``HTTPServer/start()`` returns
    /// it). Default 8080.
    public var port: Int = 8080
    /// Event-loop threads, each with its own epoll instance and its own
    /// `SO_REUSEPORT` listening socket. Default: ``usableCores``.
    public var eventLoops: Int = ServerConfiguration.usableCores
    /// Parser size limits. Default ``HTTPLimits/init()``.
    public var limits: HTTPLimits = HTTPLimits()
    /// Time allowed for a whole request head, from its first byte to its
    /// final empty line, however slowly it trickles in (a fresh connection
    /// that sends nothing is closed after this too). Expiry mid-head: 408
    /// and close. Default 10 s.
    public var headerReadTimeout: Duration = .seconds(10)
    /// Time allowed for a whole request body, from the end of its head to
    /// its last byte, however slowly it trickles in (so a trickled body
    /// cannot hold a connection for hours). Expiry: 408 and close.
    /// Default 60 s.
    public var bodyReadTimeout: Duration = .seconds(60)
    /// Longest a keep-alive connection may sit idle between requests before
    /// it is closed silently. Default 15 s.
    public var idleTimeout: Duration = .seconds(15)
    /// Longest the peer may go without accepting any response bytes while
    /// the server has some to send (reset by every send that makes
    /// progress). Expiry: close. Default 30 s.
    public var writeTimeout: Duration = .seconds(30)
    /// Open connections allowed across all loops; past it a new connection
    /// gets a 503 and is closed at once. Default 10 000.
    public var maxConnections: Int = 10_000
    /// How long ``HTTPServer/shutdown()`` lets in-flight requests finish
    /// before every connection is closed. Default 10 s.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Requests whose body is at least this many bytes run their handler on
    /// a worker thread (Dispatch's global pool) so a big upload never
    /// stalls an event loop; smaller ones run inline on the loop. Default
    /// 64 KiB.
    public var offloadBodyBytes: Int = 64 * 1024
    /// Bytes of request bodies all connections together may hold at once
    /// (``BodyBudget``; bodies of at most 16 KiB are not counted). A body
    /// that would pass it is refused with 503, `Retry-After: 1`, before
    /// the rest of it is read, and the connection is closed. At least
    /// ``HTTPLimits/maxBodyBytes`` for any body of that size to be
    /// received. Default 1 GiB.
    public var maxBufferedBodyBytes: Int = 1 << 30
    /// Bytes of responses all connections together may hold queued
    /// (``OutputBudget``): past it a response body over 64 KiB becomes a
    /// 503 with `Retry-After: 1`, and connections take no pipelined request
    /// while their output waits. Default 1 GiB.
    public var maxBufferedResponseBytes: Int = 1 << 30
    /// Asked on the event loop when a head that announces a body has
    /// arrived, before `100 Continue` is sent and before any of the body is
    /// reserved from ``maxBufferedBodyBytes`` or read: a response refuses
    /// the request (it is sent, with `Connection: close`, and the body is
    /// never read); nil admits it. For checks that need only the head,
    /// such as credentials. The request it sees has an empty body and its
    /// id; what it stores in the request's ``HTTPRequest/admission`` when it
    /// admits the head reaches the handler with that same request (and no
    /// other). It must be cheap. Default: none (every head admitted).
    public var admitsHead: (@Sendable (inout HTTPRequest) -> HTTPResponse?)? = nil
    /// Whether ``admitsHead`` admits every head without an `Origin` field
    /// (an open service's only check on a head): the server then asks it
    /// only about heads that carry one. Default `false`.
    public var admitsHeadsWithoutOrigin: Bool = false
    /// Whether to write one line per request to stderr:
    /// `<method> <path> <status> <µs>us <body bytes>B`. Lines are buffered
    /// per loop and written once per loop iteration. Default `true`.
    public var logRequests: Bool = true
    /// The request log's line format. Default ``LogFormat/text``.
    public var logFormat: LogFormat = .text
    /// Where the request log is written: a file descriptor the server does
    /// not own (tests pass a pipe). Default 2, stderr.
    public var logDescriptor: Int32 = 2
    /// Route labels for metrics and the log: a response's
    /// ``HTTPResponse/routeLabel`` indexes this list. Entry 0 labels the
    /// responses that name no route and the server's own (malformed
    /// requests, timeouts). Default `["unmatched"]`.
    public var routeLabels: [String] = ["unmatched"]

    /// WebSocket streams open at once across all loops; an upgrade past it
    /// is answered 503 with `Retry-After`. Default 10 000.
    public var maxStreams: Int = 10_000
    /// Every stream's message size, idle and closing timeouts and output
    /// bound. Default ``WebSocketLimits/init()``.
    public var webSocket = WebSocketLimits()

    /// The defaults documented on each property.
    public init() {}

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }

    /// The cores this process may run on at once (at least 1): the online
    /// cores, fewer when its CPU affinity or its cgroup's CPU quota allows
    /// fewer (``UsableCores``).
    public static var usableCores: Int { UsableCores.count }
}

extension Duration {
    /// Whole nanoseconds, saturating at `UInt64.max`; negative is 0.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (ns, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return ns &+ UInt64(attoseconds / 1_000_000_000)
    }
}
