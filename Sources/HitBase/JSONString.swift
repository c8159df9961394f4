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
    /// no escape are copied whole.
    /// - Complexity: O(utf8.count).
    @inlinable
    public static func append<Sink: ByteSink & ~Copyable>(_ utf8: UnsafeBufferPointer<UInt8>, to sink: inout Sink) {
        sink.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<utf8.count where needsEscape(utf8[i]) {
            if runStart < i { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            appendEscape(utf8[i], to: &sink)
            runStart = i + 1
        }
        if runStart < utf8.count { sink.append(UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        sink.append(UInt8(ascii: "\""))
    }

    /// Appends `s` quoted and escaped to `sink`.
    @inlinable
    public static func append<Sink: ByteSink & ~Copyable>(_ s: String, to sink: inout Sink) {
        var s = s
        s.withUTF8 { append($0, to: &sink) }
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
