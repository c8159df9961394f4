/// The one JSON string escaper (RFC 8259 §7): `"` and `\` escaped, the
/// control characters U+0000–U+001F as `\b \f \n \r \t` or `\u00XX` (lower
/// case hex); every other byte, multi-byte UTF-8 included, verbatim.
///
///     var out: [UInt8] = []
///     JSONString.append(#"a"b"#, to: &out)   // out == #""a\"b""#.utf8
///
/// The JSON writer, the server's problem details and its JSON access log
/// all write strings through it.
public enum JSONString {
    /// Whether `byte` must be escaped inside a JSON string.
    @inlinable @inline(__always)
    public static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Appends `utf8` quoted, escaped, to `sink`: runs of bytes that need
    /// no escape are copied whole, found eight bytes at a time.
    /// - Complexity: O(utf8.count).
    @inlinable
    public static func append<Sink: ByteSink & ~Copyable>(_ utf8: UnsafeBufferPointer<UInt8>, to sink: inout Sink) {
        sink.append(UInt8(ascii: "\""))
        var runStart = 0
        var i = firstEscape(utf8, from: 0)
        while i < utf8.count {
            if runStart < i { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            appendEscape(utf8[i], to: &sink)
            runStart = i + 1
            i = firstEscape(utf8, from: runStart)
        }
        if runStart < utf8.count { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        sink.append(UInt8(ascii: "\""))
    }

    /// The index of the first byte at or after `start` that `needsEscape`,
    /// or `utf8.count`: whole words of eight bytes are tested at once
    /// (``wordNeedsEscape(_:)``), the tail as the last word when at least
    /// eight bytes are asked about, else (or where a word matched) a byte
    /// at a time.
    /// - Complexity: O(utf8.count - start).
    @inlinable @inline(__always)
    public static func firstEscape(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        let n = utf8.count
        var i = start
        while i &+ 8 <= n, !wordNeedsEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i &+= 8 }
        // Fewer than eight bytes left (no word matched): the last word,
        // overlapping bytes already passed, is one test for the tail.
        if i < n, i &+ 8 > n, n &- start >= 8,
            !wordNeedsEscape(UnsafeRawPointer(base + (n &- 8)).loadUnaligned(as: UInt64.self))
        {
            return n
        }
        while i < n, !needsEscape(base[i]) { i &+= 1 }
        return i
    }

    /// Whether any of the eight bytes of `word` `needsEscape`: a byte below
    /// 0x20, or one equal to `"` or `\\` (each test is exact for the word
    /// as a whole: a borrow can only follow a byte that already matched).
    @inlinable @inline(__always)
    public static func wordNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let below = (word &- ones &* 0x20) & ~word
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (below | isQuote | isBackslash) & high != 0
    }

    /// Appends `s` quoted and escaped to `sink`.
    @inlinable
    public static func append<Sink: ByteSink & ~Copyable>(_ s: String, to sink: inout Sink) {
        // A native or small string's bytes are read in place (no copy of the string).
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append($0, to: &sink) }
        if done == nil {
            var s = s
            s.withUTF8 { append($0, to: &sink) }
        }
    }

    /// Appends the escape sequence of `byte` (one that `needsEscape`).
    @usableFromInline
    static func appendEscape<Sink: ByteSink & ~Copyable>(_ byte: UInt8, to sink: inout Sink) {
        sink.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): sink.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): sink.append(UInt8(ascii: "\\"))
        case 0x08: sink.append(UInt8(ascii: "b"))
        case 0x0C: sink.append(UInt8(ascii: "f"))
        case 0x0A: sink.append(UInt8(ascii: "n"))
        case 0x0D: sink.append(UInt8(ascii: "r"))
        case 0x09: sink.append(UInt8(ascii: "t"))
        default:
            let low = byte & 0xF
            sink.append(UInt8(ascii: "u"))
            sink.append(UInt8(ascii: "0"))
            sink.append(UInt8(ascii: "0"))
            sink.append(UInt8(ascii: "0") + (byte >> 4))
            sink.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}

/// Where bytes are appended: ``ByteBuffer`` or an array.
public protocol ByteSink: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteBuffer: ByteSink {}

extension Array: ByteSink where Element == UInt8 {
    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }
}
