import Glibc

/// The event loop's side of WebSocket streams: the switch after a 101,
/// frames in and out, jobs and offloaded work coming back from other
/// threads, time, and shutdown. Every function runs on the loop's thread.
extension EventLoop {
    /// The answer to an upgrade the server cannot take now: at
    /// ``ServerConfiguration/maxStreams``, or shutting down. Nil: go ahead.
    func refusalOfUpgrade(requestID: RequestID?) -> HTTPResponse? {
        if draining || context.shuttingDown.load(ordering: .relaxed) {
            return .problem(
                status: 503, slug: "shutting-down", title: "Shutting down",
                detail: "the service is draining and opens no new stream", requestID: requestID)
        }
        let open = context.openStreams.wrappingAdd(1, ordering: .relaxed).newValue
        if open > context.configuration.maxStreams {
            context.openStreams.wrappingSubtract(1, ordering: .relaxed)
            counters.shard.bump(counters.streamsRefused)
            var response = EventLoop.busy(
                "\(context.configuration.maxStreams) streams are open (--max-streams); retry later", requestID: requestID)
            response.headers.set("Retry-After", "5")
            return response
        }
        return nil  // the stream is counted from here
    }

    /// Makes `connection`, whose 101 is queued, a stream, and its session.
    func becomeStream(_ connection: Connection, _ upgrade: WebSocketUpgrade) {
        let stream = WebSocketStream(
            loop: self, connection: connection, limits: context.configuration.webSocket,
            subprotocol: upgrade.subprotocol, now: now)
        connection.stream = stream
        connection.stash = []
        counters.shard.bump(counters.streamsOpened)
        stream.session = upgrade.makeSession(stream)
    }

    /// Feeds bytes read from a stream's socket to its state machine and
    /// acts on each result; while a message's work is offloaded, the rest
    /// waits in the stash, unread.
    func streamProcess(_ connection: Connection, _ stream: WebSocketStream, _ input: UnsafeRawBufferPointer) {
        var rest = input
        connection.bytesIn &+= input.count
        while !rest.isEmpty {
            if stream.paused || connection.state != .open {
                if connection.state == .open { connection.stash.append(contentsOf: rest) }
                return
            }
            let (used, action) = stream.machine.read(rest, now: now)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            if case .needMoreData = action { return }
            perform(action, connection, stream)
        }
    }

    /// Does what the state machine asked.
    func perform(_ action: WebSocketStateMachine.Action, _ connection: Connection, _ stream: WebSocketStream) {
        switch action {
        case .needMoreData:
            return
        case .message(let message):
            counters.shard.bump(counters.streamMessagesIn)
            stream.session?.received(message, on: stream)
        case .sendPong(let payload):
            queueFrame(connection, .pong, payload)
        case .sendPing:
            queueFrame(connection, .ping, UnsafeRawBufferPointer(start: nil, count: 0))
        case .sendClose(let code, let reason, let thenClose):
            WebSocketFrameEncoder.closePayload(code, reason: reason).withUnsafeBytes { queueFrame(connection, .close, $0) }
            if thenClose { connection.closeAfterWrite = true }
            streamEnded(stream, code: stream.machine.closeCode ?? code)
        case .closeSocket:
            connection.closeAfterWrite = true
            streamEnded(stream, code: stream.machine.closeCode ?? .abnormal)
        }
    }

    /// Appends one unmasked frame to the connection's output, its payload
    /// `payload` followed by `more`.
    func queueFrame(
        _ connection: Connection, _ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer,
        _ more: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) {
        if connection.output.isEmpty { connection.lastWrite = now }
        let before = connection.output.count
        connection.output.appendOwned { WebSocketFrameEncoder.append(opcode: opcode, payload: payload, more, to: &$0) }
        let added = connection.output.count &- before
        outputShard.bump(OutputBudget.queuedCell, by: UInt64(added))
        counters.shard.bump(counters.bytesOut, by: UInt64(added))
    }

    /// Tells the session, once, that the stream is over.
    func streamEnded(_ stream: WebSocketStream, code: WebSocketCloseCode) {
        guard !stream.ended else { return }
        stream.ended = true
        context.openStreams.wrappingSubtract(1, ordering: .relaxed)  // a lingering socket is no stream
        let session = stream.session
        stream.session = nil  // the session and the stream no longer hold each other
        session?.closed(stream, code: code)
    }

    /// The connection of a stream is closing: the session hears of it if it has not yet.
    func streamConnectionClosed(_ connection: Connection, _ stream: WebSocketStream) {
        streamEnded(stream, code: stream.machine.closeCode ?? .abnormal)
        stream.connection = nil
        stream.continuation = nil
        connection.stream = nil
        counters.shard.bump(counters.bytesIn, by: UInt64(connection.bytesIn))
    }

    /// The stream a message from another thread names, if it is still there.
    private func liveStream(fd: Int32, serial: UInt32) -> (Connection, WebSocketStream)? {
        guard Int(fd) < connections.count, let connection = connections[Int(fd)], connection.serial == serial,
            let stream = connection.stream
        else { return nil }
        return (connection, stream)
    }

    /// A job posted through a ``WebSocketStreamHandle``.
    func streamTask(fd: Int32, serial: UInt32, _ job: @Sendable (WebSocketStream) -> Void) {
        guard let (connection, stream) = liveStream(fd: fd, serial: serial), connection.state == .open else { return }
        job(stream)
        drive(connection)
    }

    /// Offloaded work is back: its continuation runs, and the messages
    /// that waited behind it are taken up.
    func streamWork(fd: Int32, serial: UInt32, result: any Sendable) {
        guard let (connection, stream) = liveStream(fd: fd, serial: serial) else { return }
        let continuation = stream.continuation
        stream.continuation = nil
        stream.paused = false
        if stream.isOpen { continuation?(result) }
        drive(connection)
    }

    /// When the stream next needs the clock: its ping, idle close or
    /// closing handshake, or the write timeout while output waits.
    func streamDeadline(_ connection: Connection, _ stream: WebSocketStream) -> UInt64 {
        var deadline = stream.machine.deadline
        if !connection.output.isEmpty {
            deadline = min(deadline, WebSocketStateMachine.after(connection.lastWrite, context.writeTimeout))
        }
        return deadline
    }

    /// A stream's deadline passed.
    func streamExpire(_ connection: Connection, _ stream: WebSocketStream) {
        if !connection.output.isEmpty, now >= WebSocketStateMachine.after(connection.lastWrite, context.writeTimeout) {
            counters.shard.bump(counters.timeouts)
            close(connection)  // the peer reads nothing: no close frame could reach it
            return
        }
        if let action = stream.machine.tick(now: now) { perform(action, connection, stream) }
        drive(connection)
    }

    /// On shutdown: every open stream gets a close with 1001.
    func closeStreamsForShutdown() {
        for connection in active.reversed() {
            guard let stream = connection.stream, connection.state == .open else { continue }
            stream.close(.goingAway, reason: "shutting down")
            drive(connection)
        }
    }
}
