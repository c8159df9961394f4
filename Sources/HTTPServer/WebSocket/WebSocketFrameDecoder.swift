/// A frame decoder for RFC 6455 §5.2, as a state machine over bytes: it
/// is fed whatever arrived, in pieces of any size, and answers one frame
/// at a time. Pure: no I/O.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(maxPayload: 65_536)
/// let (used, result) = decoder.decode(bytes)   // .frame(header): payload in decoder.payload
/// ```
///
/// Refused, each with the close code to send (sticky: every later call
/// answers the same error):
/// - RSV bits set (no extension is ever negotiated), a reserved opcode,
///   a control frame that is fragmented or longer than 125 bytes: 1002;
/// - a frame without a mask when ``requireMask`` (a client's), or with one
///   when not (a server's): 1002;
/// - a length in more bytes than it needs (126 followed by less than 126,
///   127 followed by less than 65,536) or with the 64-bit length's top bit
///   set: 1002;
/// - a data frame longer than ``maxPayload``: 1009, from its head alone.
///
/// Each check runs as soon as the byte it reads has arrived, so any split
/// of the same bytes gives the same frames and the same error.
struct WebSocketFrameDecoder {
    /// What one call found.
    enum Result: Equatable {
        /// Every byte given was consumed; the frame is not complete yet.
        case needMoreData
        /// A whole frame: its payload, unmasked, is in ``payload`` until the next call.
        case frame(WebSocketFrameHeader)
        /// The bytes are not a valid frame.
        case error(WebSocketDecodeError)
    }

    private enum Phase {
        case head
        case payload(remaining: Int)
        case failed(WebSocketDecodeError)
    }

    /// Whether frames must be masked (a server reading a client: true) or
    /// must not be (a client reading a server: false).
    let requireMask: Bool
    /// The longest data frame payload accepted now; the owner lowers it
    /// while a fragmented message is assembled.
    var maxPayload: Int
    /// The current frame's unmasked payload.
    let payload = WebSocketPayloadBuffer()

    private var phase = Phase.head
    /// The head's bytes so far (at most 14).
    private var head: (UInt64, UInt64) = (0, 0)
    private var headCount = 0
    private var header = WebSocketFrameHeader(fin: true, opcode: .text, length: 0, mask: nil)
    private var maskPhase = 0

    init(maxPayload: Int, requireMask: Bool = true) {
        self.maxPayload = maxPayload
        self.requireMask = requireMask
    }

    /// Whether a frame has begun and not yet been returned.
    var isMidFrame: Bool {
        if case .payload = phase { return true }
        return headCount > 0
    }

    /// Consumes bytes of `input` up to the end of one frame.
    /// - Returns: how many bytes were consumed, and what they completed.
    /// - Complexity: O(bytes consumed).
    mutating func decode(_ input: UnsafeRawBufferPointer) -> (used: Int, result: Result) {
        var used = 0
        while true {
            switch phase {
            case .failed(let error):
                return (used, .error(error))
            case .head:
                if headCount == 0 { payload.reset() }
                while used < input.count {
                    let byte = input[used]
                    used += 1
                    headByte(headCount, byte)
                    headCount += 1
                    if let error = checkHead() {
                        phase = .failed(error)
                        return (used, .error(error))
                    }
                    if headCount >= 2 && headCount == headLength { break }
                }
                guard headCount >= 2 && headCount == headLength else { return (used, .needMoreData) }
                headCount = 0
                head = (0, 0)
                maskPhase = 0
                if header.length == 0 { return (used, .frame(header)) }
                phase = .payload(remaining: header.length)
            case .payload(let remaining):
                let take = min(remaining, input.count - used)
                if take == 0 { return (used, .needMoreData) }
                maskPhase = payload.append(
                    UnsafeRawBufferPointer(rebasing: input[used..<used + take]), mask: header.mask, phase: maskPhase)
                used += take
                if take == remaining {
                    phase = .head
                    return (used, .frame(header))
                }
                phase = .payload(remaining: remaining - take)
            }
        }
    }

    // MARK: The head

    private mutating func headByte(_ index: Int, _ byte: UInt8) {
        if index < 8 {
            head.0 |= UInt64(byte) << UInt64(8 * index)
        } else {
            head.1 |= UInt64(byte) << UInt64(8 * (index - 8))
        }
    }

    private func headByteAt(_ index: Int) -> UInt8 {
        index < 8 ? UInt8(truncatingIfNeeded: head.0 >> UInt64(8 * index)) : UInt8(truncatingIfNeeded: head.1 >> UInt64(8 * (index - 8)))
    }

    /// The bytes of extended length that byte 1 announces: 0, 2 or 8.
    private var extendedLengthBytes: Int {
        switch headByteAt(1) & 0x7F {
        case 126: return 2
        case 127: return 8
        default: return 0
        }
    }

    /// The head's whole length, once byte 1 is known.
    private var headLength: Int {
        2 + extendedLengthBytes + (headByteAt(1) & 0x80 != 0 ? 4 : 0)
    }

    /// Checks what the byte just added completes; fills ``header``.
    private mutating func checkHead() -> WebSocketDecodeError? {
        let index = headCount - 1
        if index == 0 {
            let b0 = headByteAt(0)
            if b0 & 0x70 != 0 { return .reservedBits }
            guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { return .reservedOpcode(b0 & 0x0F) }
            if opcode.isControl && b0 & 0x80 == 0 { return .fragmentedControl }
            header = WebSocketFrameHeader(fin: b0 & 0x80 != 0, opcode: opcode, length: 0, mask: nil)
            return nil
        }
        let b1 = headByteAt(1)
        let extended = extendedLengthBytes
        if index == 1 {
            let masked = b1 & 0x80 != 0
            if masked != requireMask { return requireMask ? .unmasked : .masked }
            let short = Int(b1 & 0x7F)
            if header.opcode.isControl && short > 125 { return .longControl }
            if extended == 0 {
                header.length = short
                return checkLength()
            }
            return nil
        }
        if index == 1 + extended {
            var length: UInt64 = 0
            for k in 2..<(2 + extended) { length = length << 8 | UInt64(headByteAt(k)) }
            if extended == 8 && length >> 63 != 0 { return .lengthTopBit }
            if extended == 2 && length < 126 || extended == 8 && length <= 0xFFFF { return .nonMinimalLength }
            guard length <= UInt64(Int.max) else { return .lengthTopBit }
            header.length = Int(length)
            return checkLength()
        }
        if index == headLength - 1, b1 & 0x80 != 0 {
            let start = 2 + extended
            var key: UInt32 = 0
            for k in start..<(start + 4) { key = key << 8 | UInt32(headByteAt(k)) }
            header.mask = key
        }
        return nil
    }

    private func checkLength() -> WebSocketDecodeError? {
        if !header.opcode.isControl && header.length > maxPayload { return .tooLong(header.length) }
        return nil
    }
}

/// Why bytes are not a frame, and the close code each takes.
enum WebSocketDecodeError: Error, Equatable, Sendable {
    case reservedBits
    case reservedOpcode(UInt8)
    case fragmentedControl
    case longControl
    case unmasked
    case masked
    case nonMinimalLength
    case lengthTopBit
    /// A data frame's length past the limit.
    case tooLong(Int)

    /// The close code to send: 1009 for a frame too long, else 1002.
    var closeCode: WebSocketCloseCode {
        if case .tooLong = self { return .messageTooBig }
        return .protocolError
    }

    /// A short reason for the close frame.
    var reason: String {
        switch self {
        case .reservedBits: return "RSV bits set without an extension"
        case .reservedOpcode(let op): return "reserved opcode \(op)"
        case .fragmentedControl: return "fragmented control frame"
        case .longControl: return "control frame over 125 bytes"
        case .unmasked: return "client frames must be masked"
        case .masked: return "server frames must not be masked"
        case .nonMinimalLength: return "length not in its shortest form"
        case .lengthTopBit: return "64-bit length with its top bit set"
        case .tooLong(let n): return "frame of \(n) bytes over the message limit"
        }
    }
}
