/// One accepted TCP connection. Owned and touched only by its event loop.
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
        var method: String
        var path: String
        var start: UInt64
    }

    /// Stop parsing further (pipelined) requests while this many response
    /// bytes wait to be sent: 1 MiB.
    static let outputHighWater = 1 << 20

    let fd: Int32
    let serial: UInt32
    /// Index in the loop's dense `active` array.
    var slot = -1
    var state: State = .open
    var parser: HTTPRequestParser
    var output = OutboundBuffer()
    /// Received bytes not yet parsed (only while a handler runs or output
    /// is backed up; at most one read's worth).
    var stash: [UInt8] = []
    /// The current response is the last one.
    var closeAfterWrite = false
    /// The peer has shut down its sending side (read returned 0).
    var peerClosed = false
    /// The epoll events currently registered.
    var interest: UInt32 = 0
    var inflight: ResponseContext?

    // Timekeeping (monotonic nanoseconds).
    let openedAt: UInt64
    var requestStart: UInt64 = 0
    var lastRead: UInt64 = 0
    var lastWrite: UInt64 = 0
    var idleSince: UInt64
    var deadline: UInt64 = .max
    var requestsServed = 0

    init(fd: Int32, serial: UInt32, limits: HTTPLimits, now: UInt64) {
        self.fd = fd
        self.serial = serial
        self.parser = HTTPRequestParser(limits: limits)
        self.openedAt = now
        self.idleSince = now
    }

    /// Whether more requests may be parsed now.
    var canProcess: Bool {
        state == .open && !closeAfterWrite && output.count < Self.outputHighWater
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
        state == .open && parser.isIdle && output.isEmpty && stash.isEmpty
    }
}
