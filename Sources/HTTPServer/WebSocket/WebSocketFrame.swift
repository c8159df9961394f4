/// A frame's opcode (RFC 6455 §5.2); 3–7 and 11–15 are reserved and
/// refused with 1002.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented.
    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// A decoded frame head (RFC 6455 §5.2): everything before the payload.
struct WebSocketFrameHeader: Equatable, Sendable {
    var fin: Bool
    var opcode: WebSocketOpcode
    /// The payload's length in bytes (at most 2^63 - 1 on the wire; the
    /// decoder refuses anything past its limit before reading it).
    var length: Int
    /// The masking key, big-endian as sent, when the frame is masked.
    var mask: UInt32?
}

/// Encodes frames (RFC 6455 §5.2): a server's frames are unmasked, a
/// client's (tests) masked.
enum WebSocketFrameEncoder {
    /// The most head bytes a frame takes: 2 + 8 (length) + 4 (mask).
    static let maxHeadBytes = 14

    /// Appends one frame with `payload` to `out`, with the shortest length
    /// encoding; masked with `mask` when given.
    /// - Complexity: O(payload).
    static func append(
        opcode: WebSocketOpcode, fin: Bool = true, rsv: UInt8 = 0, payload: UnsafeRawBufferPointer,
        mask: UInt32? = nil, to out: inout [UInt8]
    ) {
        appendHead(
            (fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode.rawValue, length: payload.count, masked: mask != nil, to: &out)
        guard let mask else {
            out.append(contentsOf: payload)
            return
        }
        let key = [
            UInt8(mask >> 24), UInt8(truncatingIfNeeded: mask >> 16), UInt8(truncatingIfNeeded: mask >> 8), UInt8(truncatingIfNeeded: mask),
        ]
        out.append(contentsOf: key)
        for (k, byte) in payload.enumerated() { out.append(byte ^ key[k & 3]) }
    }

    /// An unmasked final frame whose payload is `payload` followed by
    /// `more`, appended to `out` as ``append(opcode:fin:rsv:payload:mask:to:)``
    /// would append their concatenation.
    /// - Complexity: O(payload + more).
    static func append(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, _ more: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        appendHead(0x80 | opcode.rawValue, length: payload.count + more.count, masked: false, to: &out)
        out.append(contentsOf: payload)
        out.append(contentsOf: more)
    }

    /// The frame's first byte, then its payload length in the shortest
    /// encoding (7 bits, or 126 and 16 bits, or 127 and 64 bits, big-endian)
    /// with the mask bit when `masked`.
    /// - Complexity: O(1).
    private static func appendHead(_ first: UInt8, length n: Int, masked: Bool, to out: inout [UInt8]) {
        out.append(first)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if n < 126 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
        }
    }

    /// ``append(opcode:fin:rsv:payload:mask:to:)`` over an array.
    static func append(
        opcode: WebSocketOpcode, fin: Bool = true, rsv: UInt8 = 0, payload: [UInt8], mask: UInt32? = nil, to out: inout [UInt8]
    ) {
        payload.withUnsafeBytes { append(opcode: opcode, fin: fin, rsv: rsv, payload: $0, mask: mask, to: &out) }
    }

    /// A close frame's payload: the code big-endian, then the reason's
    /// UTF-8, cut on a character boundary to fit 125 bytes.
    static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard payload.count + bytes.count <= 125 else { break }
            payload += bytes
        }
        return payload
    }
}
