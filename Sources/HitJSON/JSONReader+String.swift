// String reading: validation (escapes, surrogates, UTF-8, control
// characters) and decoding. A string without escapes is created straight
// from the input bytes.

extension JSONReader {
    /// Reads a string value and returns its decoded contents.
    ///
    /// Accepts every RFC 8259 escape including `\uXXXX` surrogate pairs.
    /// - Throws: on a lone surrogate escape, an unknown escape, a raw control
    ///   character (< 0x20), invalid UTF-8, or a missing closing quote.
    /// - Complexity: O(length of the string); one pass without escapes, two with.
    @inlinable
    public mutating func readString() throws(JSONSyntaxError) -> String {
        skipWhitespace()
        atContainerStart = false
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw expected("a string")
        }
        return try readStringAtQuote()
    }

    /// Reads the string whose opening quote is at `position`.
    @inlinable
    mutating func readStringAtQuote() throws(JSONSyntaxError) -> String {
        stringContent(try scanString())
    }

    /// The decoded contents of a string that ``scanString()`` validated.
    @inlinable
    func stringContent(_ span: (start: Int, end: Int, escaped: Bool)) -> String {
        let content = UnsafeBufferPointer(rebasing: bytes[span.start..<span.end])
        if !span.escaped {
            return String(decoding: content, as: UTF8.self)
        }
        return JSONReader.decodeEscaped(content)
    }

    /// Validates the string whose opening quote is at `position` and moves
    /// past its closing quote.
    /// - Returns: the content's byte range (quotes excluded) and whether it
    ///   contains any backslash escape.
    @inlinable @inline(__always)
    mutating func scanString() throws(JSONSyntaxError) -> (start: Int, end: Int, escaped: Bool) {
        let start = position + 1
        let n = bytes.count
        var i = start
        // Fast loop: plain printable ASCII.
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                position = i + 1
                return (start, i, false)
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        return try scanStringSlow(start: start, from: i)
    }

    /// Continues ``scanString()`` from `i` through escapes and multi-byte UTF-8.
    @usableFromInline
    mutating func scanStringSlow(start: Int, from i: Int) throws(JSONSyntaxError)
        -> (start: Int, end: Int, escaped: Bool)
    {
        let n = bytes.count
        var i = i
        var escaped = false
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                position = i + 1
                return (start, i, escaped)
            } else if b == UInt8(ascii: "\\") {
                escaped = true
                i = try scanEscape(at: i)
            } else if b < 0x20 {
                throw error("unescaped control character 0x\(b < 16 ? "0" : "")\(String(b, radix: 16, uppercase: true)) in string", at: i)
            } else if b < 0x80 {
                i += 1
            } else {
                i = try scanUTF8Sequence(at: i)
            }
        }
        throw error("unterminated string", at: n)
    }

    /// Validates the escape whose backslash is at `i`; returns the offset after it.
    @usableFromInline
    func scanEscape(at i: Int) throws(JSONSyntaxError) -> Int {
        let n = bytes.count
        guard i + 1 < n else { throw error("unterminated string", at: n) }
        switch bytes[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: i + 2)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error("lone low surrogate \\u\(JSONReader.hex(unit)) in string", at: i)
            }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return i + 6 }
            // A high surrogate must be followed by an escaped low surrogate.
            let j = i + 6
            guard j < n else { throw error("unterminated string", at: n) }
            guard bytes[j] == UInt8(ascii: "\\") else {
                throw error("lone high surrogate \\u\(JSONReader.hex(unit)) in string", at: i)
            }
            guard j + 1 < n else { throw error("unterminated string", at: n) }
            guard bytes[j + 1] == UInt8(ascii: "u") else {
                throw error("lone high surrogate \\u\(JSONReader.hex(unit)) in string", at: i)
            }
            let low = try hex4(at: j + 2)
            guard low >= 0xDC00 && low <= 0xDFFF else {
                throw error("lone high surrogate \\u\(JSONReader.hex(unit)) in string", at: i)
            }
            return j + 6
        default:
            throw error("invalid escape sequence in string", at: i)
        }
    }

    /// Parses the four hex digits starting at `i` (after `\u`).
    /// A bad digit is reported at the escape's backslash (`i - 2`).
    @usableFromInline
    func hex4(at i: Int) throws(JSONSyntaxError) -> UInt32 {
        let n = bytes.count
        var value: UInt32 = 0
        for k in 0..<4 {
            guard i + k < n else { throw error("unterminated string", at: n) }
            guard let digit = JSONReader.hexValue(bytes[i + k]) else {
                throw error("invalid \\u escape: expected 4 hex digits", at: i - 2)
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence starting at `i` (Unicode
    /// Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    /// Returns the offset after it.
    @usableFromInline
    func scanUTF8Sequence(at i: Int) throws(JSONSyntaxError) -> Int {
        let n = bytes.count
        let lead = bytes[i]
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        let continuation: Int
        switch lead {
        case 0xC2...0xDF: continuation = 1
        case 0xE0:
            continuation = 2
            low = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: continuation = 2
        case 0xED:
            continuation = 2
            high = 0x9F
        case 0xF0:
            continuation = 3
            low = 0x90
        case 0xF1...0xF3: continuation = 3
        case 0xF4:
            continuation = 3
            high = 0x8F
        default: throw error("invalid UTF-8 in string", at: i)
        }
        for k in 1...continuation {
            guard i + k < n else { throw error("unterminated string", at: n) }
            let c = bytes[i + k]
            let ok = k == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF)
            guard ok else { throw error("invalid UTF-8 in string", at: i) }
        }
        return i + continuation + 1
    }

    /// Decodes already-validated string content that contains escapes.
    /// The result is never longer than the escaped form, so one allocation of
    /// `content.count` bytes suffices.
    @usableFromInline
    static func decodeEscaped(_ content: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: content.count) { out in
            var o = 0
            var i = 0
            let n = content.count
            while i < n {
                let b = content[i]
                if b != UInt8(ascii: "\\") {
                    out[o] = b
                    o += 1
                    i += 1
                    continue
                }
                let e = content[i + 1]
                var scalar: UInt32
                switch e {
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"):
                    scalar = hex4Unchecked(content, i + 2)
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        let low = hex4Unchecked(content, i + 8)
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                    i += 4
                default: scalar = UInt32(e)  // '"', '\\', '/'
                }
                i += 2
                o += encodeUTF8(scalar, into: out, at: o)
            }
            return o
        }
    }

    @usableFromInline
    static func hex4Unchecked(_ content: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 4 | (hexValue(content[i + k]) ?? 0) }
        return value
    }

    /// Writes `scalar` as UTF-8 at `out[o...]`; returns the number of bytes written.
    @usableFromInline
    static func encodeUTF8(_ scalar: UInt32, into out: UnsafeMutableBufferPointer<UInt8>, at o: Int) -> Int {
        if scalar < 0x80 {
            out[o] = UInt8(scalar)
            return 1
        } else if scalar < 0x800 {
            out[o] = UInt8(0xC0 | scalar >> 6)
            out[o + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        } else if scalar < 0x10000 {
            out[o] = UInt8(0xE0 | scalar >> 12)
            out[o + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[o + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        } else {
            out[o] = UInt8(0xF0 | scalar >> 18)
            out[o + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
            out[o + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
            out[o + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    @usableFromInline
    static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    static func hex(_ unit: UInt32) -> String {
        let s = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
