/// One WebSocket connection as the server sees it, after the opening
/// handshake (RFC 6455 §5–§7): frames in, messages and the frames to
/// answer with out, the closing handshake, and the idle ping. A plain
/// value: every event method takes the time and returns what to do, and
/// the event loop performs it, so every path is tested without a socket.
///
/// ```swift
/// var machine = WebSocketStateMachine(limits: limits, now: clock)
/// var rest = input
/// while true {
///     let (used, action) = machine.read(rest, now: clock)
///     rest = UnsafeRawBufferPointer(rebasing: rest[used...])
///     if case .needMoreData = action { break }
///     perform(action)          // a message to the application, a pong, a close…
/// }
/// ```
///
/// Times are monotonic nanoseconds from any origin.
struct WebSocketStateMachine {
    enum State: Equatable {
        /// Messages flow both ways.
        case open
        /// The server sent a close frame at `since` and waits for the
        /// peer's, up to ``WebSocketLimits/closingTimeout``.
        case closing(since: UInt64)
        /// Done: the socket is to be closed (once queued bytes are written).
        case closed
    }

    /// What the connection must do.
    enum Action: Equatable {
        /// Every byte given was consumed; nothing to do.
        case needMoreData
        /// A text message for the application: valid until the next call.
        case message(UnsafeRawBufferPointer)
        /// Answer a ping with a pong carrying `payload`.
        case sendPong(UnsafeRawBufferPointer)
        /// Send a ping (the stream has been silent half its idle timeout).
        case sendPing
        /// Send a close frame; with `thenClose`, close the socket once it
        /// is written, else wait for the peer's close frame.
        case sendClose(WebSocketCloseCode, reason: String, thenClose: Bool)
        /// Close the socket now (the peer answered our close, or never did).
        case closeSocket

        static func == (a: Action, b: Action) -> Bool {
            switch (a, b) {
            case (.needMoreData, .needMoreData), (.sendPing, .sendPing), (.closeSocket, .closeSocket): return true
            case (.message(let x), .message(let y)), (.sendPong(let x), .sendPong(let y)): return x.elementsEqual(y)
            case (.sendClose(let c1, let r1, let t1), .sendClose(let c2, let r2, let t2)): return c1 == c2 && r1 == r2 && t1 == t2
            default: return false
            }
        }
    }

    let limits: WebSocketLimits
    private(set) var state = State.open
    /// When a byte last arrived.
    private(set) var lastHeard: UInt64
    private var pingSent = false
    /// The code the stream ended with: sent by the server, or the peer's
    /// (``WebSocketCloseCode/noStatus`` when its close carried none). Nil while open.
    private(set) var closeCode: WebSocketCloseCode?
    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler

    init(limits: WebSocketLimits, now: UInt64) {
        self.limits = limits
        lastHeard = now
        decoder = WebSocketFrameDecoder(maxPayload: limits.maxMessageBytes)
        assembler = WebSocketMessageAssembler(maxMessageBytes: limits.maxMessageBytes)
    }

    /// Consumes bytes of `input` up to the next thing to do.
    /// - Returns: the bytes consumed and the action; call again with the
    ///   rest until it answers ``Action/needMoreData``.
    /// - Complexity: O(bytes consumed).
    mutating func read(_ input: UnsafeRawBufferPointer, now: UInt64) -> (used: Int, action: Action) {
        guard state != .closed else { return (input.count, .needMoreData) }
        if !input.isEmpty {
            lastHeard = now
            pingSent = false
        }
        var used = 0
        while true {
            decoder.maxPayload = assembler.remainingBytes
            let (n, result) = decoder.decode(UnsafeRawBufferPointer(rebasing: input[used...]))
            used += n
            switch result {
            case .needMoreData:
                return (used, .needMoreData)
            case .error(let error):
                return (input.count, fail(error.closeCode, error.reason))
            case .frame(let header):
                switch assembler.consume(header, decoder.payload.bytes) {
                case .none:
                    continue
                case .text(let message):
                    guard state == .open else { continue }  // after our close: discarded (§5.5.1)
                    return (used, .message(message))
                case .ping(let payload):
                    guard state == .open else { continue }
                    return (used, .sendPong(payload))
                case .close(let code, _):
                    if state == .open {
                        state = .closed
                        closeCode = code ?? .noStatus
                        // Echo the peer's code (§5.5.1), then close: the server closes TCP first (§7.1.1).
                        return (input.count, .sendClose(code ?? .normal, reason: "", thenClose: true))
                    }
                    state = .closed
                    return (input.count, .closeSocket)
                case .fail(let code, let reason):
                    return (input.count, fail(code, reason))
                }
            }
        }
    }

    /// Starts the closing handshake from the server's side; with
    /// `thenClose`, the socket closes once the close frame is written,
    /// without waiting for the peer's.
    /// - Returns: the close frame to send, or nil if already closing.
    mutating func close(_ code: WebSocketCloseCode, reason: String = "", now: UInt64, thenClose: Bool = false) -> Action? {
        guard state == .open else { return nil }
        state = thenClose ? .closed : .closing(since: now)
        closeCode = code
        return .sendClose(code, reason: reason, thenClose: thenClose)
    }

    /// What time alone asks for: a ping after half the idle timeout of
    /// silence, a close with 1001 after all of it, and the end of a
    /// closing handshake the peer never answered.
    mutating func tick(now: UInt64) -> Action? {
        switch state {
        case .open:
            if now >= Self.after(lastHeard, limits.idleTimeout) {
                state = .closed
                closeCode = .goingAway
                return .sendClose(.goingAway, reason: "idle", thenClose: true)
            }
            if !pingSent, now >= Self.after(lastHeard, limits.idleTimeout / 2) {
                pingSent = true
                return .sendPing
            }
            return nil
        case .closing(let since):
            guard now >= Self.after(since, limits.closingTimeout) else { return nil }
            state = .closed
            return .closeSocket
        case .closed:
            return nil
        }
    }

    /// The next time ``tick(now:)`` has something to do (`.max`: never).
    var deadline: UInt64 {
        switch state {
        case .open: return Self.after(lastHeard, pingSent ? limits.idleTimeout : limits.idleTimeout / 2)
        case .closing(let since): return Self.after(since, limits.closingTimeout)
        case .closed: return .max
        }
    }

    /// `time + span`, saturating.
    static func after(_ time: UInt64, _ span: UInt64) -> UInt64 {
        let (sum, overflow) = time.addingReportingOverflow(span)
        return overflow ? .max : sum
    }

    /// A failure: after our close frame nothing more is read, so the
    /// socket closes once it is written (§7.1.7).
    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> Action {
        if state != .open {
            state = .closed
            return .closeSocket
        }
        state = .closed
        closeCode = code
        return .sendClose(code, reason: reason, thenClose: true)
    }
}

/// The limits of every stream of one server.
public struct WebSocketLimits: Sendable, Equatable {
    /// The longest message, all fragments together (bytes); longer closes
    /// with 1009. Default 64 KiB.
    public var maxMessageBytes: Int = 64 * 1024
    /// Silence (no byte received) after which a stream is pinged (half of
    /// it) and closed with 1001 (all of it), in nanoseconds. Default 60 s.
    public var idleTimeout: UInt64 = 60_000_000_000
    /// How long the server waits for the peer's close frame after sending
    /// its own, in nanoseconds. Default 5 s.
    public var closingTimeout: UInt64 = 5_000_000_000
    /// The most bytes one stream may hold unsent; a send past it closes the
    /// stream with 1008. Default 1 MiB.
    public var maxQueuedBytes: Int = 1 << 20

    public init() {}
}
