import Glibc

/// A WebSocket client's side for live tests: the opening handshake and
/// masked frames out, frames in (RFC 6455), over the blocking ``TestClient``.
extension TestClient {
    /// One frame as received.
    public struct Frame: Equatable, CustomStringConvertible {
        public var fin: Bool
        public var opcode: UInt8
        public var payload: [UInt8]
        public init(fin: Bool, opcode: UInt8, payload: [UInt8]) {
            self.fin = fin
            self.opcode = opcode
            self.payload = payload
        }
        public var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code (nil without one).
        public var closeCode: UInt16? { payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
        public var description: String {
            "opcode \(opcode) fin \(fin) \(opcode == 8 ? "code \(closeCode.map(String.init) ?? "-") " : "")\(text)"
        }
    }

    /// The RFC 6455 §1.3 example key, whose accept value is `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`.
    public static let exampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    /// Sends an opening handshake for `path` and reads the answer's head
    /// (and body, when it is not a 101).
    public func openWebSocket(_ path: String, protocols: [String] = [], fields: [(String, String)] = []) throws -> Response {
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(Self.exampleKey)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { head += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        try send(head + "\r\n")
        return try readResponse()
    }

    /// A masked client frame's bytes.
    public static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: UInt32 = 0x1234_5678) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n <= 0xFFFF {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
        }
        let key = [
            UInt8(mask >> 24), UInt8(truncatingIfNeeded: mask >> 16), UInt8(truncatingIfNeeded: mask >> 8), UInt8(truncatingIfNeeded: mask),
        ]
        out += key
        for (k, byte) in payload.enumerated() { out.append(byte ^ key[k & 3]) }
        return out
    }

    /// Sends one masked text frame.
    public func sendText(_ text: String) throws { try send(Self.frame(opcode: 1, Array(text.utf8))) }

    /// Sends a close frame with `code`.
    public func sendClose(_ code: UInt16) throws { try send(Self.frame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)])) }

    /// Reads one (unmasked, server) frame; nil on EOF before any byte of it.
    public func readFrame() throws -> Frame? {
        func need(_ n: Int) throws -> Bool {
            while buffer.count < n { guard try fill() else { return false } }
            return true
        }
        guard try need(2) else { return nil }
        let b0 = buffer[0]
        let b1 = buffer[1]
        guard b1 & 0x80 == 0 else { throw Failure(description: "a server frame is masked") }
        var length = Int(b1 & 0x7F)
        var head = 2
        if length == 126 {
            guard try need(4) else { throw Failure(description: "EOF in a frame head") }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            head = 4
        } else if length == 127 {
            guard try need(10) else { throw Failure(description: "EOF in a frame head") }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            head = 10
        }
        guard try need(head + length) else { throw Failure(description: "EOF in a frame payload") }
        let frame = Frame(fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, payload: Array(buffer[head..<(head + length)]))
        buffer.removeFirst(head + length)
        return frame
    }
}
