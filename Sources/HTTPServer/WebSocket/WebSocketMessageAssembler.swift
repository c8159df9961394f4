/// Turns frames into messages (RFC 6455 §5.4, §5.5, §8.1): joins a
/// fragmented text message, with control frames allowed between its
/// fragments, validating its UTF-8 fragment by fragment.
///
/// Refused, with the close code to send:
/// - a continuation with no message begun, or a new message before the
///   last one ended: 1002;
/// - a binary message (this server takes text only): 1003, at its first frame;
/// - text that is not UTF-8, as soon as a fragment shows it: 1007;
/// - a message longer than ``maxMessageBytes`` in all: 1009;
/// - a close frame of one byte, with a code that may not be sent: 1002;
///   with a reason that is not UTF-8: 1007.
struct WebSocketMessageAssembler {
    /// What one frame amounts to.
    enum Event: Equatable {
        /// Nothing yet (a fragment of a longer message, or a pong).
        case none
        /// A whole text message, valid until the next frame: the frame's own
        /// payload when unfragmented, else the assembled buffer.
        case text(UnsafeRawBufferPointer)
        case ping(UnsafeRawBufferPointer)
        /// A close frame: its code (nil when it carried none) and reason.
        case close(WebSocketCloseCode?, String)
        /// Refused: close with `code`.
        case fail(WebSocketCloseCode, String)

        static func == (a: Event, b: Event) -> Bool {
            switch (a, b) {
            case (.none, .none): return true
            case (.text(let x), .text(let y)), (.ping(let x), .ping(let y)): return x.elementsEqual(y)
            case (.close(let c1, let r1), .close(let c2, let r2)): return c1 == c2 && r1 == r2
            case (.fail(let c1, let r1), .fail(let c2, let r2)): return c1 == c2 && r1 == r2
            default: return false
            }
        }
    }

    /// The longest message accepted, in bytes (all fragments together).
    let maxMessageBytes: Int
    /// The fragments of the message being assembled.
    let message = WebSocketPayloadBuffer()
    private var inMessage = false
    private var validator = UTF8Validator()

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// The longest next data frame that keeps the message within the limit.
    var remainingBytes: Int { inMessage ? maxMessageBytes - message.count : maxMessageBytes }

    /// Takes one decoded frame and its unmasked payload.
    /// - Complexity: O(payload).
    mutating func consume(_ header: WebSocketFrameHeader, _ payload: UnsafeRawBufferPointer) -> Event {
        switch header.opcode {
        case .ping:
            return .ping(payload)
        case .pong:
            return .none
        case .close:
            return close(payload)
        case .binary:
            if inMessage { return .fail(.protocolError, "a new message began before the last one ended") }
            return .fail(.unsupportedData, "binary messages are not accepted; send text")
        case .text:
            if inMessage { return .fail(.protocolError, "a new message began before the last one ended") }
            validator = UTF8Validator()
            if header.fin {
                // The usual case: a whole message in one frame, not copied.
                guard payload.count <= maxMessageBytes else { return tooBig(payload.count) }
                guard validator.feed(payload), validator.isComplete else { return invalidText }
                return .text(payload)
            }
            inMessage = true
            message.reset()
            return fragment(header, payload)
        case .continuation:
            guard inMessage else { return .fail(.protocolError, "a continuation frame with no message begun") }
            return fragment(header, payload)
        }
    }

    private mutating func fragment(_ header: WebSocketFrameHeader, _ payload: UnsafeRawBufferPointer) -> Event {
        guard payload.count <= remainingBytes else { return tooBig(message.count + payload.count) }
        guard validator.feed(payload) else { return invalidText }
        message.append(payload, mask: nil, phase: 0)
        guard header.fin else { return .none }
        inMessage = false
        guard validator.isComplete else { return invalidText }
        return .text(message.bytes)
    }

    private var invalidText: Event { .fail(.invalidPayload, "text message is not valid UTF-8") }

    private func tooBig(_ bytes: Int) -> Event {
        .fail(.messageTooBig, "message of at least \(bytes) bytes; the limit is \(maxMessageBytes)")
    }

    private func close(_ payload: UnsafeRawBufferPointer) -> Event {
        if payload.isEmpty { return .close(nil, "") }
        guard payload.count >= 2 else { return .fail(.protocolError, "a close frame of one byte") }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.mayBeReceived else { return .fail(.protocolError, "close code \(code) may not be sent") }
        let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
        var validator = UTF8Validator()
        guard validator.feed(reason), validator.isComplete else {
            return .fail(.invalidPayload, "close reason is not valid UTF-8")
        }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }
}
