/// The grammar of a `Host` field value (RFC 9112 §3.2):
/// `uri-host [ ":" port ]`, where (RFC 3986 §3.2.2, §3.2.3)
///
///     uri-host   = IP-literal / IPv4address / reg-name
///     IP-literal = "[" ( IPv6address / IPvFuture ) "]"
///     IPvFuture  = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
///     reg-name   = *( unreserved / pct-encoded / sub-delims )
///     port       = *DIGIT
///
/// An IPv4address is a reg-name too, so it needs no rule of its own. The
/// empty value is valid (RFC 9112 §3.2: a target without authority).
enum HostField {
    /// Whether `value` (OWS already trimmed) is `uri-host [ ":" port ]`.
    /// - Complexity: O(value.count), no allocation; a lowercase name or an
    ///   IPv4 address, with or without a port, is tested eight bytes at a
    ///   time (every request has a Host).
    static func isValid(_ value: ArraySlice<UInt8>) -> Bool {
        value.withUnsafeBufferPointer { isValid($0) }
    }

    /// Bits 0–63 and 64–127 of the reg-name bytes other than `%`:
    /// unreserved (ALPHA, DIGIT, `-._~`) and sub-delims (``!$&'()*+,;=``).
    private static let regNameLow: UInt64 = 0x2BFF_7FD2_0000_0000
    private static let regNameHigh: UInt64 = 0x47FF_FFFE_87FF_FFFE

    @inline(__always)
    static func isRegName(_ b: UInt8) -> Bool {
        let mask = b < 64 ? regNameLow : regNameHigh
        return b < 128 && (mask >> UInt64(b & 63)) & 1 == 1
    }

    static func isValid(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        isUsualForm(value) || isValidByGrammar(value)
    }

    /// Whether `value` is `*( lowercase / DIGIT / "-" / "." ) [ ":" *DIGIT ]`,
    /// the form of nearly every Host (`127.0.0.1:8080`, `api.example.com`):
    /// true only when it is, and then the value is valid; false sends it to
    /// the whole grammar (``isValidByGrammar(_:)``). The port is read from
    /// the end, the name eight bytes at a time (``isUsualNameWord(_:)``).
    /// - Complexity: O(value.count), about a third of a byte-by-byte pass.
    @inline(__always)
    static func isUsualForm(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = value.baseAddress else { return true }  // empty: valid (RFC 9112 §3.2)
        let raw = UnsafeRawPointer(base)
        var nameEnd = value.count
        if nameEnd >= 8 {
            // The trailing digits among the last 8 bytes, by the same trick.
            let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: nameEnd - 8, as: UInt64.self))
            guard last & high == 0 else { return false }
            let nonDigits = ~(atLeast(0x30, last) & ~atLeast(0x3A, last)) & high
            nameEnd -= nonDigits.leadingZeroBitCount >> 3  // the last byte is the top one
        }
        while nameEnd > 0, base[nameEnd - 1] &- UInt8(ascii: "0") < 10 { nameEnd -= 1 }  // fewer than 8 bytes, or 8 digits
        if nameEnd > 0, base[nameEnd - 1] == UInt8(ascii: ":") {
            nameEnd -= 1
        } else {
            nameEnd = value.count  // no port: the digits belong to the name
        }
        guard nameEnd >= 8 else {
            for i in 0..<nameEnd where !isUsualNameByte(base[i]) { return false }
            return true
        }
        var i = 0
        while i + 8 < nameEnd {
            guard isUsualNameWord(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) else { return false }
            i += 8
        }
        return isUsualNameWord(raw.loadUnaligned(fromByteOffset: nameEnd - 8, as: UInt64.self))  // the last 8, overlapping
    }

    /// Whether `b` is a lowercase letter, a digit, `-` or `.`.
    @inline(__always)
    static func isUsualNameByte(_ b: UInt8) -> Bool {
        b &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// Whether all 8 bytes of `x` are lowercase letters, digits, `-` or `.`,
    /// tested together: for an ASCII byte `b`, bit 7 of `b + (0x80 - lo)` is
    /// set exactly when `b ≥ lo` (no byte carries into the next, as
    /// `b ≤ 0x7F`), so `b ∈ [lo, hi]` is that bit for `lo` and not for `hi + 1`.
    @inline(__always)
    static func isUsualNameWord(_ x: UInt64) -> Bool {
        guard x & high == 0 else { return false }
        let dashDot = atLeast(0x2D, x) & ~atLeast(0x2F, x)  // "-" "."
        let digit = atLeast(0x30, x) & ~atLeast(0x3A, x)
        let lower = atLeast(0x61, x) & ~atLeast(0x7B, x)
        return (dashDot | digit | lower) & high == high
    }

    private static let high: UInt64 = 0x8080_8080_8080_8080

    /// Bit 7 of each byte of `x` (all ASCII) set where the byte is at least `lo`.
    @inline(__always)
    private static func atLeast(_ lo: UInt64, _ x: UInt64) -> UInt64 { x &+ (0x80 - lo) &* 0x0101_0101_0101_0101 }

    /// `uri-host [ ":" port ]` by its grammar, byte by byte.
    static func isValidByGrammar(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let end = value.count
        if i < end, value[i] == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: UInt8(ascii: "]")) else { return false }
            guard isIPLiteral(Array(value[1..<close])[...]) else { return false }
            i = close + 1
        } else {
            while i < end {
                let b = value[i]
                if isRegName(b) {
                    i += 1
                } else if b == UInt8(ascii: "%") {
                    guard i + 2 < end, ByteClass.hexValue(value[i + 1]) != nil, ByteClass.hexValue(value[i + 2]) != nil else {
                        return false
                    }
                    i += 3
                } else {
                    break
                }
            }
        }
        guard i < end else { return true }
        guard value[i] == UInt8(ascii: ":") else { return false }
        i += 1
        while i < end {
            guard value[i] &- UInt8(ascii: "0") < 10 else { return false }
            i += 1
        }
        return true
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        ByteClass.lower(b) &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    static func isSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// The inside of `[…]`: an IPv6address or an IPvFuture.
    static func isIPLiteral(_ s: ArraySlice<UInt8>) -> Bool {
        guard let first = s.first else { return false }
        if ByteClass.lower(first) == UInt8(ascii: "v") {
            guard let dot = s.firstIndex(of: UInt8(ascii: ".")), dot > s.startIndex + 1, dot + 1 < s.endIndex else {
                return false
            }
            return s[(s.startIndex + 1)..<dot].allSatisfy { ByteClass.hexValue($0) != nil }
                && s[(dot + 1)...].allSatisfy { isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") }
        }
        return isIPv6(s)
    }

    /// RFC 3986's IPv6address: eight 16-bit pieces of 1–4 hex digits, the
    /// last two of which may be written as an IPv4address, with at most one
    /// `::` standing for one or more zero pieces.
    static func isIPv6(_ s: ArraySlice<UInt8>) -> Bool {
        var pieces = 0
        var elided = false
        var i = s.startIndex
        let end = s.endIndex
        if s.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            elided = true
            i += 2
            if i == end { return true }
        }
        while i < end {
            // One piece: hex digits up to ":" or the end, or a final IPv4address.
            var j = i
            while j < end, ByteClass.hexValue(s[j]) != nil { j += 1 }
            if j < end, s[j] == UInt8(ascii: ".") {
                guard isIPv4(s[i..<end]) else { return false }
                pieces += 2
                break
            }
            guard j > i, j - i <= 4 else { return false }
            pieces += 1
            if j == end { break }
            guard s[j] == UInt8(ascii: ":"), j + 1 < end else { return false }
            if s[j + 1] == UInt8(ascii: ":") {
                guard !elided else { return false }
                elided = true
                i = j + 2
                if i == end { break }
            } else {
                i = j + 1
            }
        }
        return elided ? pieces <= 7 : pieces == 8
    }

    /// Four decimal octets 0–255 without leading zeros, dot-separated.
    static func isIPv4(_ s: ArraySlice<UInt8>) -> Bool {
        let parts = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { p in
            guard (1...3).contains(p.count), p.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return false }
            if p.count > 1, p.first == UInt8(ascii: "0") { return false }
            return p.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }
}
