import CEpoll
import Dispatch
import Glibc
import HitBase
import HitMetrics
import Synchronization

/// One event-loop thread: an epoll instance, its own `SO_REUSEPORT`
/// listening socket, an eventfd for wake-ups from other threads, and the
/// connections it accepted. Everything but ``post(_:)`` runs on the loop's
/// own thread, so connection state needs no locks.
final class EventLoop: @unchecked Sendable {
    /// Work handed to the loop by other threads.
    enum Message: Sendable {
        /// An offloaded handler finished.
        case response(fd: Int32, serial: UInt32, HTTPResponse)
        /// Stop accepting and drain until `deadline` (monotonic ns).
        case shutdown(deadline: UInt64)
        /// A job for a stream, from a ``WebSocketStreamHandle``.
        case streamTask(fd: Int32, serial: UInt32, @Sendable (WebSocketStream) -> Void)
        /// A stream's offloaded work finished with `result`.
        case streamWork(fd: Int32, serial: UInt32, result: any Sendable)
    }

    private struct Inbox {
        var messages: [Message] = []
        var closed = false
    }

    static let wakeToken = UInt64.max
    static let listenToken = UInt64.max - 1
    static let readBufferSize = 64 * 1024
    static let maxEvents: Int32 = 256

    let index: Int
    let context: ServerContext
    let epollFD: Int32
    let wakeFD: Int32
    var listenFD: Int32
    private let inbox = Mutex(Inbox())

    /// Connections by descriptor, and densely for sweeps.
    var connections: [Connection?] = []
    var active: [Connection] = []
    private var nextSerial: UInt32 = 1

    let readBuffer: UnsafeMutableRawBufferPointer
    /// The monotonic time at the last wake-up.
    var now: UInt64
    @exclusivity(unchecked) var date = HTTPDateCache()
    /// The handler fields this loop wrote last, as one block.
    let fieldBlocks = FieldBlockCache()
    @exclusivity(unchecked) var log: RequestLog
    /// This loop's shard of the server's counters.
    let counters: ServerMetrics.LoopCounters
    /// This loop's shard of ``OutputBudget``'s cells: bytes queued, bytes drained.
    let outputShard: ShardPointer
    /// Whether the output budget was full at the last sweep.
    var outputPressure = false
    /// Requests this loop has seen, for generated request ids.
    @exclusivity(unchecked) var requestSerial: UInt64 = 0
    var draining = false
    var drainDeadline: UInt64 = .max
    private var nextSweep: UInt64 = 0
    private var listenerPausedUntil: UInt64 = 0

    init(index: Int, context: ServerContext, listenFD: Int32) throws(SystemCallError) {
        self.index = index
        self.context = context
        self.listenFD = listenFD
        epollFD = try Syscall.call("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try Syscall.call("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            Glibc.close(epollFD)
            throw error
        }
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        log = RequestLog(format: context.configuration.logFormat, fd: context.configuration.logDescriptor)
        counters = context.metrics.loopCounters(index)
        outputShard = context.outputBudget.cells.shardPointer(index)
        now = MonotonicClock.nanoseconds()
        do {
            try control(EPOLL_CTL_ADD, wakeFD, events: CEPOLL_IN, token: Self.wakeToken)
            try control(EPOLL_CTL_ADD, listenFD, events: CEPOLL_IN, token: Self.listenToken)
        } catch {
            Glibc.close(wakeFD)
            Glibc.close(epollFD)
            readBuffer.deallocate()
            throw error
        }
    }

    func control(_ op: Int32, _ fd: Int32, events: UInt32, token: UInt64) throws(SystemCallError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = try Syscall.call("epoll_ctl") { epoll_ctl(epollFD, op, fd, &event) }
    }

    /// Hands `message` to the loop from any thread.
    /// - Returns: false when the loop has already stopped.
    @discardableResult
    func post(_ message: Message) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            let wasEmpty = inbox.messages.isEmpty
            inbox.messages.append(message)
            // Written under the lock so the eventfd cannot be closed (and
            // its number reused) in between.
            if wasEmpty { _ = eventfd_write(wakeFD, 1) }
            return true
        }
    }

    /// Runs until drained after a shutdown message; then closes everything.
    func run() {
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.maxEvents))
        defer { events.deallocate() }
        let timeout = Int32(clamping: context.tick / 1_000_000)
        while true {
            let count = epoll_wait(epollFD, events, Self.maxEvents, timeout)
            now = MonotonicClock.nanoseconds()
            date.update()
            if count < 0 && errno != EINTR {
                let code = errno
                ServiceLog(format: context.configuration.logFormat).callAsFunction(
                    .error, "epoll_wait failed: errno \(code)", ["errno": .int(Int(code))])
            }
            for k in 0..<Int(max(0, count)) {
                let event = events[k]
                switch event.data.u64 {
                case Self.wakeToken: drainInbox()
                case Self.listenToken: acceptConnections()
                default: connectionEvent(token: event.data.u64, events: event.events)
                }
            }
            if now >= nextSweep {
                sweep()
                nextSweep = now &+ context.tick
            }
            log.flush()
            if draining && (active.isEmpty || now >= drainDeadline) { break }
        }
        teardown()
    }

    private func drainInbox() {
        var value: eventfd_t = 0
        _ = eventfd_read(wakeFD, &value)
        let messages = inbox.withLock { inbox in
            var taken: [Message] = []
            swap(&taken, &inbox.messages)
            return taken
        }
        for message in messages {
            switch message {
            case .response(let fd, let serial, let response):
                handlerFinished(fd: fd, serial: serial, response: response)
            case .shutdown(let deadline):
                beginDrain(deadline: deadline)
            case .streamTask(let fd, let serial, let job):
                streamTask(fd: fd, serial: serial, job)
            case .streamWork(let fd, let serial, let result):
                streamWork(fd: fd, serial: serial, result: result)
            }
        }
    }

    // MARK: Accepting

    private func acceptConnections() {
        let wantsAddress = context.configuration.logRequests && context.configuration.logFormat == .json
        var address = sockaddr_storage()
        for _ in 0..<64 where listenFD >= 0 {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let fd =
                wantsAddress
                ? withUnsafeMutablePointer(to: &address) { cepoll_accept4(listenFD, $0, &length, flags) }
                : cepoll_accept4(listenFD, nil, nil, flags)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: stop listening for a moment rather than spin.
                    try? control(EPOLL_CTL_DEL, listenFD, events: 0, token: 0)
                    listenerPausedUntil = now &+ 100_000_000
                    return
                default:
                    return
                }
            }
            let open = context.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
            if open > context.configuration.maxConnections {
                refuseOverCapacity(fd)
                continue
            }
            try? ListeningSocket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            register(fd, remote: wantsAddress ? ListeningSocket.describe(&address) : "")
        }
    }

    private func register(_ fd: Int32, remote: String) {
        let serial = nextSerial
        nextSerial = nextSerial >= UInt32.max - 2 ? 1 : nextSerial + 1
        let connection = Connection(fd: fd, serial: serial, limits: context.configuration.limits, now: now)
        if outputPressure { connection.highWater = 1 }
        do {
            try control(EPOLL_CTL_ADD, fd, events: CEPOLL_IN, token: UInt64(serial) << 32 | UInt64(UInt32(fd)))
        } catch {
            Glibc.close(fd)
            context.openConnections.wrappingSubtract(1, ordering: .relaxed)
            return
        }
        connection.interest = CEPOLL_IN
        connection.remote = remote
        counters.shard.bump(counters.accepted)
        if Int(fd) >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
        }
        connections[Int(fd)] = connection
        connection.slot = active.count
        active.append(connection)
        connection.deadline = now &+ context.headerTimeout
    }

    /// Past `maxConnections`: a 503 problem, sent once without waiting, then close.
    private func refuseOverCapacity(_ fd: Int32) {
        context.openConnections.wrappingSubtract(1, ordering: .relaxed)
        counters.shard.bump(counters.refusedConnections)
        var out = OutboundBuffer()
        var framing = ResponseEncoder.Framing(isHead: false, version: .http1_1, close: true)
        let id = generateRequestID()
        let problem = HTTPResponse.problem(
            status: 503, slug: "service-unavailable", title: "Service unavailable",
            detail: "too many open connections", requestID: id)
        _ = ResponseEncoder.encode(problem, framing: &framing, date: date.bytes, requestID: id, into: &out)
        _ = out.write(to: fd)
        Glibc.close(fd)
    }

    /// A new request id, for a request that came without a valid one.
    func generateRequestID() -> RequestID {
        requestSerial &+= 1
        return RequestID(loop: index, serial: requestSerial)
    }

    private func resumeListenerIfPaused() {
        guard listenerPausedUntil != 0, now >= listenerPausedUntil, listenFD >= 0 else { return }
        listenerPausedUntil = 0
        try? control(EPOLL_CTL_ADD, listenFD, events: CEPOLL_IN, token: Self.listenToken)
    }

    // MARK: Shutdown

    private func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        if listenFD >= 0 {
            Glibc.close(listenFD)
            listenFD = -1
        }
        for connection in active.reversed() where connection.isQuiescent || connection.state == .lingering {
            close(connection)
        }
        closeStreamsForShutdown()
    }

    /// Closes every descriptor the loop owns; it must not run afterwards.
    func teardown() {
        for connection in active.reversed() { close(connection) }
        if listenFD >= 0 { Glibc.close(listenFD) }
        log.flush()
        inbox.withLock { inbox in
            inbox.closed = true
            inbox.messages = []
            Glibc.close(wakeFD)
        }
        Glibc.close(epollFD)
        readBuffer.deallocate()
    }

    /// Closes the descriptor and forgets the connection.
    func close(_ connection: Connection) {
        guard connection.state != .closed else { return }
        connection.state = .closed
        if let stream = connection.stream { streamConnectionClosed(connection, stream) }
        context.bodyBudget.release(connection.bodyReserved)
        connection.bodyReserved = 0
        if connection.output.held > 0 { outputShard.bump(OutputBudget.drainedCell, by: UInt64(connection.output.held)) }
        connections[Int(connection.fd)] = nil
        let last = active.removeLast()
        if last !== connection {
            active[connection.slot] = last
            last.slot = connection.slot
        }
        context.openConnections.wrappingSubtract(1, ordering: .relaxed)
        Glibc.close(connection.fd)
    }

    // MARK: Timeouts

    /// Applies every deadline that has passed; sweeps all connections once
    /// per tick (cheap: a comparison each).
    private func sweep() {
        resumeListenerIfPaused()
        let pressure = context.outputBudget.isFull
        if pressure != outputPressure {
            outputPressure = pressure
            for connection in active { connection.highWater = pressure ? 1 : Connection.outputHighWater }
        }
        var i = active.count - 1
        while i >= 0 {
            if i < active.count, now >= active[i].deadline { expire(active[i]) }
            i -= 1
        }
    }
}
