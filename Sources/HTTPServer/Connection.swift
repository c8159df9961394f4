/// One accepted TCP connection. Owned and touched only by its event loop.
///
/// Its fields are read and written by that one thread, each access over
/// before the next begins, so their dynamic exclusivity checks are off
/// (`@exclusivity(unchecked)`), which saves about twenty
/// `swift_beginAccess` calls a request.
final class Connection {
    enum State: Equatable {
        /// Reading requests and writing responses.
        case open
        /// A handler runs on a worker thread; nothing more is parsed until
        /// its response arrives.
        case awaitingHandler
        /// The last response is sent and our side shut down; reading and
        /// discarding until the peer closes or the linger time passes.
        case lingering
        case closed
    }

    /// What the response to the request being handled needs.
    struct ResponseContext {
        var isHead: Bool
        var keepAlive: Bool
        var version: HTTPVersion
        /// The method's slot in `ServerMetrics.methods` (9: `other`, for a
        /// request that failed to parse).
        var methodSlot: UInt8 = 9
        /// The method and path, for the request log: empty while that log is off.
        var method: String
        var path: String
        var start: UInt64
        /// The request's id: sent back, logged.
        var requestID: RequestID?
        /// Bytes the request took on the wire (head and body).
        var bytesIn: Int = 0
    }

    /// Stop parsing further (pipelined) requests while this many response
    /// bytes wait to be sent: 1 MiB.
    static let outputHighWater = 1 << 20

    let fd: Int32
    let serial: UInt32
    /// Index in the loop's dense `active` array.
    @exclusivity(unchecked) var slot = -1
    @exclusivity(unchecked) var state: State = .open
    @exclusivity(unchecked) var parser: HTTPRequestParser
    @exclusivity(unchecked) var output = OutboundBuffer()
    /// Received bytes not yet parsed (only while a handler runs or output
    /// is backed up; at most one read's worth).
    @exclusivity(unchecked) var stash: [UInt8] = []
    /// The current response is the last one.
    @exclusivity(unchecked) var closeAfterWrite = false
    /// The peer has shut down its sending side (read returned 0).
    @exclusivity(unchecked) var peerClosed = false
    /// The epoll events currently registered.
    @exclusivity(unchecked) var interest: UInt32 = 0
    @exclusivity(unchecked) var inflight: ResponseContext?
    /// Set once the connection has switched to WebSocket: it reads frames
    /// from then on, never HTTP.
    @exclusivity(unchecked) var stream: WebSocketStream?

    // Timekeeping (monotonic nanoseconds).
    let openedAt: UInt64
    @exclusivity(unchecked) var requestStart: UInt64 = 0
    @exclusivity(unchecked) var lastRead: UInt64 = 0
    @exclusivity(unchecked) var lastWrite: UInt64 = 0
    /// When the head of the request whose body is being received ended.
    @exclusivity(unchecked) var bodyStart: UInt64 = 0
    @exclusivity(unchecked) var idleSince: UInt64
    @exclusivity(unchecked) var deadline: UInt64 = .max
    @exclusivity(unchecked) var requestsServed = 0
    /// Bytes parsed so far of the request being received.
    @exclusivity(unchecked) var bytesIn = 0
    /// Bytes of ``ServerContext/bodyBudget`` the body being received holds.
    @exclusivity(unchecked) var bodyReserved = 0
    /// ``HTTPRequest/admission`` of the head being read, for its request
    /// only: set when the head is admitted, taken with the request.
    @exclusivity(unchecked) var admission: UInt64 = 0
    /// The peer's address as `host:port` (`[v6]:port`), for the JSON log;
    /// empty unless that log is on.
    @exclusivity(unchecked) var remote = ""

    init(fd: Int32, serial: UInt32, limits: HTTPLimits, now: UInt64) {
        self.fd = fd
        self.serial = serial
        self.parser = HTTPRequestParser(limits: limits)
        self.openedAt = now
        self.idleSince = now
    }

    /// Parse no further request while this many response bytes wait:
    /// ``outputHighWater``, or 1 while the server's ``OutputBudget`` is full.
    @exclusivity(unchecked) var highWater = Connection.outputHighWater

    /// Whether more requests may be parsed now.
    var canProcess: Bool {
        guard state == .open && !closeAfterWrite else { return false }
        if let stream { return !stream.paused }  // a stream's session bounds its own output
        return output.count < highWater
    }

    /// Whether to ask epoll for readability.
    var wantsRead: Bool {
        switch state {
        case .lingering: return true
        case .open: return canProcess && !peerClosed && stash.isEmpty
        default: return false
        }
    }

    /// Idle between requests with nothing in flight: safe to close at shutdown.
    var isQuiescent: Bool {
        state == .open && parser.isIdle && output.isEmpty && stash.isEmpty && stream == nil
    }
}
