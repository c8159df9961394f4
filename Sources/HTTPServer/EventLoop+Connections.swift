import CEpoll
import Dispatch
import Glibc
import HitBase
import Synchronization

/// The per-connection I/O cycle: read into the loop's buffer, parse in
/// place, run the handler (inline, or offloaded for big bodies), encode the
/// response, write, and re-arm epoll.
extension EventLoop {
    func connectionEvent(token: UInt64, events: UInt32) {
        let fd = Int(UInt32(truncatingIfNeeded: token))
        guard fd < connections.count, let connection = connections[fd],
            connection.serial == UInt32(truncatingIfNeeded: token >> 32)
        else { return }
        if events & (CEPOLL_IN | CEPOLL_HUP | CEPOLL_ERR) != 0 {
            if connection.wantsRead {
                readable(connection)
            } else if events & (CEPOLL_HUP | CEPOLL_ERR) != 0 {
                close(connection)
                return
            }
        }
        if events & CEPOLL_OUT != 0, connection.state != .closed {
            drive(connection)
        }
    }

    // MARK: Reading

    private func readable(_ connection: Connection) {
        if connection.state == .lingering {
            discardInput(connection)
            return
        }
        var reads = 0
        reading: while connection.wantsRead {
            let result = Syscall.nonBlocking("read") {
                read(connection.fd, readBuffer.baseAddress, readBuffer.count)
            }
            switch result {
            case .done(0):
                connection.peerClosed = true
                break reading
            case .done(let n):
                connection.lastRead = now
                process(connection, UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                reads += 1
                // A short read drained the socket (level-triggered epoll
                // reports anything new); bound the work per wake-up.
                if n < readBuffer.count || reads >= 4 { break reading }
            case .wouldBlock:
                break reading
            case .failed:
                close(connection)
                return
            }
        }
        drive(connection)
    }

    /// Lingering close: read and drop whatever the peer still sends.
    private func discardInput(_ connection: Connection) {
        while true {
            let result = Syscall.nonBlocking("read") {
                read(connection.fd, readBuffer.baseAddress, readBuffer.count)
            }
            switch result {
            case .done(let n) where n > 0:
                continue
            case .wouldBlock:
                return
            default:
                close(connection)
                return
            }
        }
    }

    // MARK: Parsing and handling

    /// Feeds `input` to the connection's parser and acts on every event;
    /// whatever cannot be parsed yet (a handler is running, output is
    /// backed up) is stashed.
    func process(_ connection: Connection, _ input: UnsafeRawBufferPointer) {
        if let stream = connection.stream {
            streamProcess(connection, stream, input)
            return
        }
        var rest = input
        while !rest.isEmpty {
            guard connection.canProcess else {
                if connection.state == .open || connection.state == .awaitingHandler, !connection.closeAfterWrite {
                    connection.stash.append(contentsOf: rest)
                }
                return
            }
            let wasIdle = connection.parser.isIdle
            let (used, step) = connection.parser.step(rest)
            if wasIdle, used > 0 { connection.requestStart = now }
            connection.bytesIn &+= used
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            switch step {
            case .needMoreData:
                if connection.parser.phase == .body, connection.parser.declaredBodyLength == nil {
                    _ = reserveChunkedBody(connection)  // refused: the 503 is queued
                }
                return
            case .head(let expectsContinue):
                connection.lastRead = now
                connection.bodyStart = now
                connection.admission = 0
                if let admit = context.configuration.admitsHead,
                    !context.configuration.admitsHeadsWithoutOrigin || connection.parser.pendingMayHaveOrigin,
                    refuseHead(connection, admit)
                {
                    return
                }
                guard reserveBody(connection) else { return }
                if expectsContinue {
                    if connection.output.isEmpty { connection.lastWrite = now }
                    connection.output.appendOwned { $0.append(contentsOf: ResponseEncoder.continueBytes) }
                    outputShard.bump(OutputBudget.queuedCell, by: UInt64(ResponseEncoder.continueBytes.count))
                }
            case .request(let keepAlive):
                let bytesIn = connection.bytesIn
                connection.bytesIn = 0
                // The body's reservation goes with the request to its handler.
                let reserved = connection.bodyReserved
                connection.bodyReserved = 0
                // The head's admission goes with it too, and no further.
                let admission = connection.admission
                connection.admission = 0
                handle(
                    connection, connection.parser.takeRequest(), keepAlive: keepAlive, bytesIn: bytesIn, bodyReserved: reserved,
                    admission: admission)
                if let stream = connection.stream {
                    // Upgraded: what follows the handshake is frames.
                    streamProcess(connection, stream, rest)
                    return
                }
            case .error(let error):
                answerAndClose(connection) { error.response(requestID: $0) }
                return
            }
        }
    }

    /// Offloaded requests with bodies this big are followed by `malloc_trim`.
    static let trimAfterBodyBytes = 1 << 20

    private func handle(
        _ connection: Connection, _ request: consuming HTTPRequest, keepAlive: Bool, bytesIn: Int, bodyReserved: Int, admission: UInt64
    ) {
        request.admission = admission
        let bodyBytes = request.bodyCount
        let offload = bodyBytes >= context.configuration.offloadBodyBytes
        let id: RequestID?
        if request.hasClientRequestID {
            request.noteLoop(index, serial: 0, handlerOnLoop: !offload)
            id = request.requestID
        } else {
            requestSerial &+= 1
            request.noteLoop(index, serial: requestSerial, handlerOnLoop: !offload)
            id = RequestID(loop: index, serial: requestSerial)
        }
        counters.shard.bump(counters.started)
        let methodSlot = connection.parser.methodSlot  // of this request: the parser notes it with the head
        let logs = context.configuration.logRequests  // only the log reads the method and path
        let responseContext = Connection.ResponseContext(
            isHead: methodSlot == 1, keepAlive: keepAlive, version: request.version, methodSlot: methodSlot,
            method: logs ? request.method : "", path: logs ? request.path : "",
            start: connection.requestStart, requestID: id, bytesIn: bytesIn)
        if offload {
            self.offload(connection, request, responseContext, bodyReserved: bodyReserved)
        } else {
            switch context.responder(request, .loop) {
            case .response(let response):
                context.bodyBudget.release(bodyReserved)
                respond(connection, response, responseContext)
            case .onWorker(let work):
                self.offload(connection, request, responseContext, bodyReserved: bodyReserved, work: work)
            }
        }
    }

    /// Runs the responder on a worker thread (or, given `work`, the rest of
    /// the work it handed over on the loop); the response comes back
    /// through ``handlerFinished(fd:serial:response:)``.
    private func offload(
        _ connection: Connection, _ request: HTTPRequest, _ responseContext: Connection.ResponseContext, bodyReserved: Int,
        work: (@Sendable () -> HTTPResponse)? = nil
    ) {
        connection.state = .awaitingHandler
        connection.inflight = responseContext
        let responder = context.responder
        let fd = connection.fd
        let serial = connection.serial
        var request = request
        request.noteWorkerThread()
        request.makeBodyReleasable()
        let trim = request.body.count >= EventLoop.trimAfterBodyBytes
        let budget = context.bodyBudget
        context.offload.submit { [self, request] in
            let response = work?() ?? responder(request, .worker).answer()
            budget.release(bodyReserved)  // the handler is done with the body
            post(.response(fd: fd, serial: serial, response))
            // A big body and what the handler built and dropped leave
            // free pages inside malloc's arenas: give them back.
            if trim { _ = malloc_trim(0) }
        }
    }

    /// An offloaded handler's response is back on the loop.
    func handlerFinished(fd: Int32, serial: UInt32, response: HTTPResponse) {
        guard Int(fd) < connections.count, let connection = connections[Int(fd)],
            connection.serial == serial, connection.state == .awaitingHandler,
            let responseContext = connection.inflight
        else {
            counters.shard.bump(counters.abandoned)
            return
        }
        connection.state = .open
        connection.inflight = nil
        respond(connection, response, responseContext)
        drive(connection)
    }

    /// Queues `response`, or a 503 in its place when it is large and the
    /// output budget is full.
    @inline(__always)
    private func respond(_ connection: Connection, _ response: HTTPResponse, _ request: Connection.ResponseContext) {
        if let upgrade = response.upgrade, response.status == 101 {
            if let refusal = refusalOfUpgrade(requestID: request.requestID) {
                queue(connection, refusal, request)
            } else {
                queue(connection, response, request)
                becomeStream(connection, upgrade)
            }
        } else if response.body.count > OutputBudget.freeBytes, context.outputBudget.isFull {
            queue(connection, busyResponse(requestID: request.requestID), request)  // the big body is freed
        } else {
            queue(connection, response, request)
        }
    }

    /// Asks `admit` about the head just parsed; when it refuses, queues its
    /// answer (logged under the request's method and path) and closes the
    /// connection after it, the body unread. True when refused; when
    /// admitted, what `admit` noted is kept for this head's request.
    private func refuseHead(_ connection: Connection, _ admit: @Sendable (inout HTTPRequest) -> HTTPResponse?) -> Bool {
        // Taken out and put back (moved, not copied: the request's strings
        // and buffers are neither retained nor released).
        guard var head = connection.parser.pending.take() else { return false }
        let id: RequestID?
        if head.hasClientRequestID {
            head.noteLoop(index, serial: 0, handlerOnLoop: true)
            id = head.requestID
        } else {
            requestSerial &+= 1
            head.noteLoop(index, serial: requestSerial, handlerOnLoop: true)
            id = RequestID(loop: index, serial: requestSerial)
        }
        guard let refusal = admit(&head) else {
            connection.admission = head.admission
            connection.parser.pending = consume head
            return false
        }
        let logs = context.configuration.logRequests  // only the log reads the method and path
        let responseContext = Connection.ResponseContext(
            isHead: connection.parser.methodIsHead, keepAlive: false, version: head.version, methodSlot: connection.parser.methodSlot,
            method: logs ? head.method : "", path: logs ? head.path : "",
            start: connection.requestStart, requestID: id, bytesIn: connection.bytesIn)
        connection.parser.pending = consume head
        connection.bytesIn = 0
        counters.shard.bump(counters.started)
        respond(connection, refusal, responseContext)
        return true
    }

    /// Answers a request the server itself refuses (malformed, timed out,
    /// over a budget) with `make(id)` under a fresh request id, and closes
    /// the connection after it.
    func answerAndClose(_ connection: Connection, _ make: (RequestID) -> HTTPResponse) {
        let id = generateRequestID()
        let responseContext = Connection.ResponseContext(
            isHead: connection.parser.methodIsHead, keepAlive: false, version: .http1_1, method: "-", path: "-",
            start: connection.requestStart, requestID: id, bytesIn: connection.bytesIn)
        connection.bytesIn = 0
        counters.shard.bump(counters.started)
        respond(connection, make(id), responseContext)
    }

    /// Encodes `response` into the connection's output and logs it.
    private func queue(_ connection: Connection, _ response: HTTPResponse, _ request: Connection.ResponseContext) {
        var framing = ResponseEncoder.Framing(
            isHead: request.isHead, version: request.version,
            close: !request.keepAlive || draining || connection.peerClosed
                || context.shuttingDown.load(ordering: .relaxed))
        if connection.output.isEmpty { connection.lastWrite = now }
        let status = response.status
        let route = counters.route(response.routeLabel)
        let queuedBefore = connection.output.count
        let bodyBytes = ResponseEncoder.encode(
            response, framing: &framing, date: date.bytes, requestID: request.requestID, fieldCache: fieldBlocks,
            into: &connection.output)
        let bytesOut = connection.output.count &- queuedBefore
        outputShard.bump(OutputBudget.queuedCell, by: UInt64(bytesOut))
        connection.requestsServed += 1
        connection.idleSince = now
        if framing.close { connection.closeAfterWrite = true }
        let elapsed = request.start == 0 ? 0 : MonotonicClock.nanoseconds() &- request.start
        counters.record(
            route: route, methodSlot: Int(request.methodSlot), status: status,
            nanoseconds: elapsed, bytesIn: request.bytesIn, bytesOut: bytesOut)
        if context.configuration.logRequests {
            log.append(
                LogEntry(
                    method: request.method, path: request.path, route: context.metrics.routeLabels[route], status: status,
                    nanoseconds: elapsed, bodyBytes: bodyBytes, bytesIn: request.bytesIn, bytesOut: bytesOut,
                    remote: connection.remote, requestID: request.requestID))
        }
    }

    // MARK: Writing and state upkeep

    /// Makes all possible progress: parses stashed bytes, writes, closes
    /// when done, then re-arms epoll and the deadline.
    func drive(_ connection: Connection) {
        while true {
            if connection.canProcess, !connection.stash.isEmpty {
                let stashed = connection.stash
                connection.stash = []
                stashed.withUnsafeBytes { process(connection, $0) }
            }
            if !connection.output.isEmpty {
                let before = connection.output.count
                guard flush(connection) else { return }
                if let stream = connection.stream, connection.output.count < before, let session = stream.session {
                    session.wrote(stream)  // it may queue more: written on the next pass
                    if !connection.output.isEmpty, connection.output.count < before { continue }
                }
            }
            if connection.output.isEmpty,
                connection.closeAfterWrite || (connection.peerClosed && connection.state == .open && connection.stash.isEmpty)
            {
                finish(connection)
                return
            }
            if connection.canProcess, !connection.stash.isEmpty { continue }
            break
        }
        updateInterest(connection)
        updateDeadline(connection)
    }

    /// Writes until done or the socket is full. False if the connection
    /// was closed on an error.
    private func flush(_ connection: Connection) -> Bool {
        while !connection.output.isEmpty {
            let held = connection.output.held
            let result = connection.output.write(to: connection.fd)
            let freed = held &- connection.output.held
            if freed > 0 { outputShard.bump(OutputBudget.drainedCell, by: UInt64(freed)) }
            switch result {
            case .done(let n):
                if n > 0 { connection.lastWrite = now }
            case .wouldBlock:
                return true
            case .failed:
                close(connection)
                return false
            }
        }
        return true
    }

    /// After the last response: half-close and linger, or close at once if
    /// the peer is already gone.
    private func finish(_ connection: Connection) {
        if connection.peerClosed || connection.state == .awaitingHandler {
            close(connection)
            return
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.state = .lingering
        connection.stash = []
        connection.deadline = min(now &+ context.lingerTimeout, draining ? drainDeadline : .max)
        updateInterest(connection)
    }

    func updateInterest(_ connection: Connection) {
        guard connection.state != .closed else { return }
        var wanted: UInt32 = connection.wantsRead ? CEPOLL_IN : 0
        if !connection.output.isEmpty, connection.state != .lingering { wanted |= CEPOLL_OUT }
        guard wanted != connection.interest else { return }
        let token = UInt64(connection.serial) << 32 | UInt64(UInt32(connection.fd))
        do {
            try control(EPOLL_CTL_MOD, connection.fd, events: wanted, token: token)
            connection.interest = wanted
        } catch {
            close(connection)
        }
    }

    /// The next moment something must happen to this connection if nothing
    /// else does. See ``ServerConfiguration`` for each timeout.
    func updateDeadline(_ connection: Connection) {
        if connection.state == .open, let stream = connection.stream {
            connection.deadline = streamDeadline(connection, stream)
            return
        }
        switch connection.state {
        case .open:
            if !connection.output.isEmpty {
                connection.deadline = connection.lastWrite &+ context.writeTimeout
            } else {
                switch connection.parser.phase {
                case .idle:
                    connection.deadline =
                        connection.requestsServed == 0
                        ? connection.openedAt &+ context.headerTimeout
                        : connection.idleSince &+ context.idleTimeout
                case .head:
                    connection.deadline = connection.requestStart &+ context.headerTimeout
                case .body:
                    connection.deadline = connection.bodyStart &+ context.bodyTimeout
                }
            }
        case .awaitingHandler:
            connection.deadline = connection.output.isEmpty ? .max : connection.lastWrite &+ context.writeTimeout
        case .lingering, .closed:
            break
        }
    }

    /// A deadline passed: idle connections close silently, a request that
    /// stalled mid-head or mid-body gets a 408 first.
    func expire(_ connection: Connection) {
        if connection.state == .open, let stream = connection.stream {
            streamExpire(connection, stream)
            return
        }
        switch connection.state {
        case .open where connection.output.isEmpty && connection.parser.phase != .idle:
            connection.stash = []
            counters.shard.bump(counters.timeouts)
            let detail =
                connection.parser.phase == .head ? "the request head was not received in time" : "the request body was not received in time"
            answerAndClose(connection) { id in
                HTTPResponse.problem(status: 408, slug: "request-timeout", title: "Request timeout", detail: detail, requestID: id)
            }
            drive(connection)
        case .open, .lingering:
            close(connection)
        case .awaitingHandler:
            if !connection.output.isEmpty { close(connection) }
        case .closed:
            break
        }
    }
}

// MARK: - The body budget

extension EventLoop {
    /// After a head that announces a body: a `Content-Length` body past
    /// ``BodyBudget/freeBytes`` reserves its whole length now, before any of
    /// it is buffered. False when refused (the 503 is queued).
    func reserveBody(_ connection: Connection) -> Bool {
        guard let length = connection.parser.declaredBodyLength, length > BodyBudget.freeBytes else { return true }
        guard context.bodyBudget.reserve(length) else {
            refuseBody(connection, length: length)
            return false
        }
        connection.bodyReserved = length
        return true
    }

    /// While a chunked body arrives: keeps its reservation ahead of the
    /// buffer that holds it (its capacity, which a chunk that announces
    /// more than has arrived makes up to sixteen times the bytes received),
    /// a step (at least ``BodyBudget/chunkedStep``, doubling) at a time.
    /// False when refused (the 503 is queued).
    func reserveChunkedBody(_ connection: Connection) -> Bool {
        let held = connection.parser.bodyBytesHeld
        guard held > BodyBudget.freeBytes, held > connection.bodyReserved else { return true }
        let target = min(max(held, connection.bodyReserved * 2, BodyBudget.chunkedStep), context.configuration.limits.maxBodyBytes)
        let more = max(target, held) - connection.bodyReserved
        guard context.bodyBudget.reserve(more) else {
            refuseBody(connection, length: nil)
            return false
        }
        connection.bodyReserved += more
        return true
    }

    /// 503 with `Retry-After: 1`, then close: the body is not read.
    private func refuseBody(_ connection: Connection, length: Int?) {
        let budget = context.bodyBudget
        let size = length.map { "a body of \($0) bytes" } ?? "this chunked body"
        answerAndClose(connection) { id in
            EventLoop.busy(
                "the server holds \(budget.inUse) bytes of request bodies being received, of its \(budget.capacity) (--max-buffered-body-bytes); \(size) does not fit now: retry",
                requestID: id)
        }
    }

    /// What a large response becomes while the output budget is full.
    func busyResponse(requestID: RequestID?) -> HTTPResponse {
        let budget = context.outputBudget
        budget.noteRefusal()
        return EventLoop.busy(
            "the server holds \(budget.queued) bytes of responses its clients have not read yet, of its \(budget.capacity) (--max-buffered-response-bytes); this answer is over \(OutputBudget.freeBytes) bytes: retry",
            requestID: requestID)
    }

    /// A 503 `/problems/busy` with `Retry-After: 1`.
    static func busy(_ detail: String, requestID: RequestID?) -> HTTPResponse {
        var response = HTTPResponse.problem(
            status: 503, slug: "busy", title: "Busy", detail: detail, requestID: requestID)
        response.headers.set("Retry-After", "1")
        return response
    }
}
