import Glibc

/// Character classes of RFC 9110 as branch-free bitmap tests.
///
/// The masks are compile-time constants (a `static let` table would cost a
/// lazy-initialisation check on every byte of the hot parser loops).
enum ByteClass {
    /// Bits 0–63 and 64–127 of the `tchar` set: ALPHA, DIGIT and
    /// ``!#$%&'*+-.^_`|~``.
    private static let tokenLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Whether `byte` is a `tchar` (RFC 9110 §5.6.2).
    @inline(__always)
    static func isToken(_ byte: UInt8) -> Bool {
        let mask = byte < 64 ? tokenLow : tokenHigh
        return byte < 128 && (mask >> UInt64(byte & 63)) & 1 == 1
    }

    /// Whether `byte` may appear inside a field value (RFC 9110 §5.5):
    /// VCHAR, obs-text, SP or HTAB. CR, LF, NUL, other controls and DEL may not.
    @inline(__always)
    static func isFieldValue(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == 0x09
    }

    /// Whether all eight bytes of `word` are field-value bytes other than
    /// HTAB (no byte below 0x20, none 0x7F); false may mean HTAB.
    @inline(__always)
    static func isPlainFieldValue(word x: UInt64) -> Bool {
        nonPlainFieldValueBytes(word: x) == 0  // non-zero exactly when some byte is below 0x20, or is 0x7F
    }

    /// Bit 7 of each byte of `word` that is below 0x20 or is 0x7F (the
    /// bytes ``isPlainFieldValue(word:)`` refuses). Exact up to the lowest
    /// such byte, which is all it is read for: a borrow may mark bytes above it.
    @inline(__always)
    static func nonPlainFieldValueBytes(word x: UInt64) -> UInt64 {
        let below = (x &- 0x2020_2020_2020_2020) & ~x & 0x8080_8080_8080_8080
        let d = x ^ 0x7F7F_7F7F_7F7F_7F7F
        let del = (d &- 0x0101_0101_0101_0101) & ~d & 0x8080_8080_8080_8080
        return below | del
    }

    /// The index of the first byte in `start..<end` that may not appear in
    /// a field value (see ``isFieldValue(_:)``), or `end`; eight bytes at a
    /// time, a word's first refused byte found from its mask (HTAB, which
    /// the word test refuses, is stepped over).
    @inline(__always)
    static func fieldValueEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i + 8 <= end {
            let refused = nonPlainFieldValueBytes(word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            if refused == 0 {
                i += 8
                continue
            }
            i += refused.trailingZeroBitCount >> 3
            guard bytes[i] == 0x09 else { return i }
            i += 1
        }
        while i < end, isFieldValue(bytes[i]) { i += 1 }
        return i
    }

    /// `v + (0x80 - lo)` in every byte: for bytes below 0x80, bit 7 of a
    /// byte is then set exactly when it is at least `lo` (no byte carries
    /// into the next).
    @inline(__always)
    static func atLeast(_ lo: UInt8, _ v: UInt64) -> UInt64 {
        v &+ 0x0101_0101_0101_0101 &* UInt64(0x80 &- lo)
    }

    /// How many of the low bytes of `word` (read little-endian), 0…8, are
    /// ASCII letters, digits or `-` before the first that is not: token
    /// bytes (``isToken(_:)``), those most field names are made of.
    @inline(__always)
    static func usualTokenBytes(word x: UInt64) -> Int {
        let high: UInt64 = 0x8080_8080_8080_8080
        let v = x & ~high
        let folded = v | 0x2020_2020_2020_2020  // a letter's lowercase
        let letter = atLeast(0x61, folded) & ~atLeast(0x7B, folded)
        let digit = atLeast(0x30, v) & ~atLeast(0x3A, v)
        let notDash = (v ^ 0x2D2D_2D2D_2D2D_2D2D) &+ 0x7F7F_7F7F_7F7F_7F7F  // bit 7 clear only for `-`
        let usual = (letter | digit | ~notDash) & ~x & high
        return (~usual & high).trailingZeroBitCount >> 3
    }

    /// The index of the first byte in `start..<end` that is not a token
    /// byte (``isToken(_:)``), or `end`; eight bytes at a time while they
    /// are letters, digits or `-`.
    @inline(__always)
    static func tokenEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i + 8 <= end {
            let usual = usualTokenBytes(word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += usual
            if usual < 8 { break }
        }
        while i < end, isToken(bytes[i]) { i += 1 }
        return i
    }

    /// Bit 7 of each byte of `word` that may not appear in a request-target
    /// (``isTarget(_:)``: 0x20 and below, 0x7F and above). Exact up to the
    /// lowest such byte, which is all it is read for.
    @inline(__always)
    static func nonTargetBytes(word x: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let low = (x &- 0x2121_2121_2121_2121) & ~x & high  // below 0x21 (a borrow may mark bytes above)
        let top = (x | ((x & ~high) &+ 0x0101_0101_0101_0101)) & high  // 0x80 and above, or 0x7F
        return low | top
    }

    /// The index of the first byte in `start..<end` that may not appear in
    /// a request-target (``isTarget(_:)``), or `end`; eight bytes at a time.
    @inline(__always)
    static func targetEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i + 8 <= end {
            let refused = nonTargetBytes(word: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            if refused != 0 { return i + refused.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < end, isTarget(bytes[i]) { i += 1 }
        return i
    }

    /// Whether every byte may appear in a field value.
    static func allFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        fieldValueEnd(UnsafeRawBufferPointer(bytes), from: 0, to: bytes.count) == bytes.count
    }

    /// Whether a field may be sent as it is: a token for a name, a value
    /// without CR, LF, NUL or other controls (a handler bug must not split
    /// the response).
    static func isSendable(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        !name.isEmpty && name.allSatisfy(isToken) && allFieldValue(value)
    }

    /// Whether `byte` may appear in a request-target: visible ASCII.
    @inline(__always)
    static func isTarget(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// Whether `byte` is SP or HTAB (optional whitespace, OWS).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    /// ASCII lower-casing of one byte.
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }
}

/// ASCII case-insensitive comparison of `bytes` with a lower-case literal.
@inline(__always)
func asciiEqualsLowercased<C: Collection>(_ bytes: C, _ lowercased: StaticString) -> Bool where C.Element == UInt8 {
    guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
    return lowercased.withUTF8Buffer { expected in
        var i = 0
        for byte in bytes {
            if ByteClass.lower(byte) != expected[i] { return false }
            i &+= 1
        }
        return true
    }
}

/// `asciiEqualsLowercased` against bytes known only at run time.
func asciiEqualsLowercased<C: Collection>(_ bytes: C, _ lowercased: UnsafeBufferPointer<UInt8>) -> Bool where C.Element == UInt8 {
    guard bytes.count == lowercased.count else { return false }
    var i = 0
    for byte in bytes {
        if ByteClass.lower(byte) != lowercased[i] { return false }
        i &+= 1
    }
    return true
}

/// Whether `bytes` are exactly `text`'s UTF-8.
@inline(__always)
func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    bytes.count == text.utf8CodeUnitCount && (bytes.isEmpty || memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0)
}

/// ASCII case-insensitive equality of two byte strings.
@inline(__always)
func asciiCaseInsensitiveEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    guard x.count == y.count else { return false }
    for i in 0..<x.count where x[i] != y[i] && ByteClass.lower(x[i]) != ByteClass.lower(y[i]) { return false }
    return true
}

/// ASCII case-insensitive equality of two strings, without allocating.
@inline(__always)
func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in asciiCaseInsensitiveEquals(x, y) } }
}
