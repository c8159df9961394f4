/// Standard base64 (RFC 4648 §4, with `=` padding), the alphabet of
/// `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`.
enum WebSocketBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as base64 text.
    /// - Complexity: O(n).
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The number of bytes `text` decodes to, when it is well-formed
    /// padded base64 (length a multiple of 4, only alphabet characters
    /// before at most two `=`), else nil.
    static func decodedLength(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        for (k, b) in bytes.enumerated() {
            if b == UInt8(ascii: "=") {
                guard k >= bytes.count - 2 else { return nil }
                padding += 1
            } else {
                guard padding == 0, alphabet.contains(b) else { return nil }
            }
        }
        return bytes.count / 4 * 3 - padding
    }
}
