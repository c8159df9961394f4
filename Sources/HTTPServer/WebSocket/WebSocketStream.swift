/// One open WebSocket stream, as its session sees it. Everything here runs
/// on the stream's event loop (the thread that calls the session); from
/// any other thread, go through ``handle``.
///
/// Sends are queued in the connection's output and written together once
/// the loop has handled everything that arrived in one read: answers to a
/// batch of messages leave in one `send`.
public final class WebSocketStream {
    /// The loop that owns the stream.
    let loop: EventLoop
    /// Cleared when the connection closes (sends are ignored from then on).
    var connection: Connection?
    var machine: WebSocketStateMachine
    /// The application's side, made right after the upgrade.
    public internal(set) var session: (any WebSocketSession)?
    /// The subprotocol the upgrade named.
    public let subprotocol: String?
    /// Reaches this stream from any thread.
    public let handle: WebSocketStreamHandle
    /// The most bytes the stream may hold unsent: past it, a send closes
    /// the stream with 1008 (``WebSocketLimits/maxQueuedBytes``).
    public var maxQueuedBytes: Int { machine.limits.maxQueuedBytes }
    /// A message's work runs on a worker: no further message is delivered
    /// until it is back.
    var paused = false
    /// What to run on the loop when offloaded work returns.
    var continuation: ((any Sendable) -> Void)?
    /// ``WebSocketSession/closed(_:code:)`` was called.
    var ended = false

    init(loop: EventLoop, connection: Connection, limits: WebSocketLimits, subprotocol: String?, now: UInt64) {
        self.loop = loop
        self.connection = connection
        self.subprotocol = subprotocol
        machine = WebSocketStateMachine(limits: limits, now: now)
        handle = WebSocketStreamHandle(loop: loop, fd: connection.fd, serial: connection.serial)
    }

    /// Whether messages can still be sent (no close sent or received).
    public var isOpen: Bool { !ended && machine.state == .open && connection != nil }

    /// Bytes queued and not yet written to the socket (this stream's
    /// frames, and what remains of the 101 before them).
    public var queuedBytes: Int { connection?.output.count ?? 0 }

    /// The index of the event loop the stream lives on (0-based).
    public var loopIndex: Int { loop.index }

    /// Queues one text frame (the caller vouches that `text` is UTF-8).
    /// Ignored once the stream is not open. Past ``maxQueuedBytes`` the
    /// stream is closed with 1008 instead.
    /// - Complexity: O(text); no allocation while the output's chunk has room.
    public func send(text: UnsafeRawBufferPointer) {
        send(text: text, UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// ``send(text:)`` of the message `head` followed by `tail`, in one
    /// frame (a message written in two pieces need not be joined first).
    public func send(text head: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer) {
        guard isOpen, let connection else { return }
        loop.queueFrame(connection, .text, head, tail)
        loop.counters.shard.bump(loop.counters.streamMessagesOut)
        if connection.output.count > maxQueuedBytes {
            close(.policyViolation, reason: "the client reads its answers too slowly", immediately: true)
        }
    }

    /// ``send(text:)`` of an array's bytes.
    public func send(text: [UInt8]) {
        text.withUnsafeBytes { send(text: $0) }
    }

    /// Starts the closing handshake with `code` (nothing when not open).
    /// `immediately`: do not wait for the peer's close frame; close the
    /// socket once ours is written (for a peer that is not listening).
    public func close(_ code: WebSocketCloseCode, reason: String = "", immediately: Bool = false) {
        guard isOpen, let connection else { return }
        guard let action = machine.close(code, reason: reason, now: loop.now, thenClose: immediately) else { return }
        loop.perform(action, connection, self)
    }

    /// Runs `work` on a worker thread (the pool big request bodies use),
    /// then `then` with its result back on this loop. Until `then` has
    /// run, no further message of this stream is delivered (they wait,
    /// unread, in order), so a stream's answers keep its order. When the
    /// stream closes meanwhile, `then` is not called.
    public func offload<T: Sendable>(_ work: @escaping @Sendable () -> T, then: @escaping (T) -> Void) {
        guard isOpen, let connection else { return }
        paused = true
        continuation = { result in then(result as! T) }  // our own box: always a T
        let loop = self.loop
        let fd = connection.fd
        let serial = connection.serial
        let submitted = loop.context.offload.submit {
            let result = work()
            loop.post(.streamWork(fd: fd, serial: serial, result: result))
        }
        if !submitted {
            paused = false
            continuation = nil
            then(work())
        }
    }
}

/// A reference to a stream that any thread may hold and use: jobs posted
/// through it run on the stream's loop (woken through its eventfd), so
/// only that loop ever writes to the stream's socket.
public struct WebSocketStreamHandle: Sendable, Hashable {
    let loop: EventLoop
    let fd: Int32
    let serial: UInt32

    /// Runs `job` with the stream on its loop, soon; not at all if the
    /// stream has closed by then.
    /// - Returns: false when the loop has stopped.
    @discardableResult
    public func execute(_ job: @escaping @Sendable (WebSocketStream) -> Void) -> Bool {
        loop.post(.streamTask(fd: fd, serial: serial, job))
    }

    /// The index of the stream's event loop.
    public var loopIndex: Int { loop.index }

    public static func == (a: WebSocketStreamHandle, b: WebSocketStreamHandle) -> Bool {
        a.loop === b.loop && a.fd == b.fd && a.serial == b.serial
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(loop))
        hasher.combine(fd)
        hasher.combine(serial)
    }
}
