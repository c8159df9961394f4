/// Base64 (RFC 4648 §4, the standard alphabet) for mask images, strict:
/// the text is a whole number of 4-character groups, `=` padding appears
/// only at the end (one or two of it, as the length requires), the bits
/// the padding leaves unused are 0, and nothing else is accepted, no
/// whitespace or line breaks either. Each byte string therefore has
/// exactly one encoding, so `encode(decode(s)) == s` for every `s` that
/// decodes.
///
///     Base64.decode("AP8=")   // [0x00, 0xFF]
///
/// - Complexity: O(length), one pass, no allocation beyond the result.
package enum Base64 {
    /// Why a text is not strict base64: the 0-based offset of the first
    /// character at fault, and what is wrong with it.
    package struct Failure: Error, Equatable {
        let offset: Int
        let message: String
    }

    /// The bytes a text of `length` characters would decode to, or nil
    /// when that length cannot be base64 (not a multiple of 4).
    /// The padding is not looked at: the result is 0, 1 or 2 too many.
    package static func maximumDecodedCount(length: Int) -> Int? {
        length % 4 == 0 ? length / 4 * 3 : nil
    }

    /// The bytes `text` encodes.
    package static func decode(_ text: String) throws(Failure) -> [UInt8] {
        var text = text
        let result = text.withUTF8 { utf8 in Result { () throws(Failure) in try decode(utf8) } }
        return try result.get()
    }

    package static func decode(_ utf8: UnsafeBufferPointer<UInt8>) throws(Failure) -> [UInt8] {
        let n = utf8.count
        guard n % 4 == 0 else {
            // A stray character says more than the length it spoils.
            if let bad = utf8.firstIndex(where: { value($0) == 64 && $0 != UInt8(ascii: "=") }) {
                throw Failure(offset: bad, message: describe(utf8[bad]))
            }
            throw Failure(offset: n, message: "the length \(n) is not a multiple of 4 (padding with = is required)")
        }
        guard n > 0 else { return [] }
        var padding = 0
        if utf8[n - 1] == UInt8(ascii: "=") { padding = utf8[n - 2] == UInt8(ascii: "=") ? 2 : 1 }
        let count = n / 4 * 3 - padding
        return try [UInt8](unsafeUninitializedCapacity: count) { (out, initialized) throws(Failure) in
            var o = 0
            var i = 0
            while i < n {
                var group: UInt32 = 0
                let last = i + 4 == n
                for k in 0..<4 {
                    let c = utf8[i + k]
                    let v = value(c)
                    if v < 64 {
                        group = group << 6 | UInt32(v)
                        continue
                    }
                    guard c == UInt8(ascii: "="), last, k >= 4 - padding else {
                        initialized = o
                        throw Failure(offset: i + k, message: describe(c))
                    }
                    group <<= 6
                }
                let bytes = last ? 3 - padding : 3
                if last && padding > 0 {
                    let unused: UInt32 = padding == 1 ? group & 0xFF : group & 0xFFFF
                    guard unused == 0 else {
                        initialized = o
                        throw Failure(
                            offset: n - padding - 1, message: "the bits before the padding must be 0 (the encoding is not canonical)")
                    }
                }
                out[o] = UInt8(truncatingIfNeeded: group >> 16)
                if bytes > 1 { out[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                if bytes > 2 { out[o + 2] = UInt8(truncatingIfNeeded: group) }
                o += bytes
                i += 4
            }
            initialized = o
        }
    }

    /// The canonical, padded encoding of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        let n = bytes.count
        let length = (n + 2) / 3 * 4
        let utf8 = [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
            var o = 0
            var i = 0
            while i < n {
                let b0 = UInt32(bytes[i])
                let b1 = i + 1 < n ? UInt32(bytes[i + 1]) : 0
                let b2 = i + 2 < n ? UInt32(bytes[i + 2]) : 0
                let group = b0 << 16 | b1 << 8 | b2
                out[o] = alphabet[Int(group >> 18 & 63)]
                out[o + 1] = alphabet[Int(group >> 12 & 63)]
                out[o + 2] = i + 1 < n ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "=")
                out[o + 3] = i + 2 < n ? alphabet[Int(group & 63)] : UInt8(ascii: "=")
                o += 4
                i += 3
            }
            initialized = o
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The 6-bit value of an alphabet character, or 64 for any other byte.
    @inline(__always)
    private static func value(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return 64
        }
    }

    private static func describe(_ c: UInt8) -> String {
        switch c {
        case UInt8(ascii: "="): return "= may only pad the end (one or two of it)"
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
            return "whitespace is not allowed in base64 here"
        case UInt8(ascii: "-"), UInt8(ascii: "_"): return "'\(Character(Unicode.Scalar(c)))' is base64url, not base64 (use + and /)"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))' is not a base64 character"
        default: return "byte 0x\(String(c, radix: 16, uppercase: true)) is not a base64 character"
        }
    }
}
