import HitBase

/// Appends compact JSON to a byte buffer; commas and colons are placed automatically.
///
///     var w = JSONWriter()
///     w.beginObject()
///     w.key("layer"); w.string("button")
///     w.key("local"); w.beginArray(); w.number(120); w.number(0.5); w.endArray()
///     w.endObject()
///     // w.bytes == #"{"layer":"button","local":[120,0.5]}"#.utf8
///
/// The writer trusts its caller to nest correctly (a key before each object
/// member's value, matching begin/end calls); it does not check.
///
/// It writes into a ``ByteBuffer`` it owns outright (it cannot be copied),
/// so a write is a capacity check and a store. ``finish()`` hands the JSON
/// out as an array (one copy, once). Strings are escaped by ``JSONString``.
public struct JSONWriter: ~Copyable {
    @usableFromInline var buffer: ByteBuffer
    /// True when the next key or value must be preceded by a comma.
    @usableFromInline var needsComma = false

    /// Creates an empty writer reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Bytes written.
    public var count: Int { buffer.count }

    /// The JSON written so far (a copy).
    public var bytes: [UInt8] {
        withBytes { Array($0) }
    }

    /// The JSON written, as an array; the writer is gone afterwards.
    /// - Complexity: O(count), one copy.
    public consuming func finish() -> [UInt8] {
        buffer.finish()
    }

    /// Runs `body` over the JSON written so far.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withBytes(body)
    }

    // MARK: Raw appends

    /// Room for `n` more bytes; returns where they go. Call `advance(n)` after writing them.
    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        buffer.reserve(n)
    }

    @inlinable @inline(__always)
    mutating func advance(_ n: Int) {
        buffer.advance(n)
    }

    @inlinable @inline(__always)
    mutating func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(bytes)
    }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    @inlinable @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes `{`.
    @inlinable
    public mutating func beginObject() {
        separate()
        append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes `}`.
    @inlinable
    public mutating func endObject() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`.
    @inlinable
    public mutating func beginArray() {
        separate()
        append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Writes `]`.
    @inlinable
    public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object member's key and the `:`; a value must follow.
    @inlinable
    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key known when the program is built (ASCII with
    /// nothing to escape, which is not checked), without the escaping scan.
    @inlinable
    public mutating func field(_ name: StaticString) {
        let n = name.utf8CodeUnitCount
        let p = reserve(n &+ 4)
        var i = 0
        if needsComma {
            p[0] = UInt8(ascii: ",")
            i = 1
        }
        p[i] = UInt8(ascii: "\"")
        ByteBuffer.copy(name.utf8Start, to: p + i + 1, count: n)
        p[i + n + 1] = UInt8(ascii: "\"")
        p[i + n + 2] = UInt8(ascii: ":")
        advance(i + n + 3)
        needsComma = false
    }

    /// Writes a string value (see ``appendQuoted(_:)`` for the escaping).
    @inlinable
    public mutating func string(_ s: String) {
        separate()
        appendQuoted(s)
        needsComma = true
    }

    /// Writes `true` or `false`.
    @inlinable
    public mutating func bool(_ b: Bool) {
        separate()
        appendASCII(b ? "true" : "false")
        needsComma = true
    }

    /// Writes `null`.
    @inlinable
    public mutating func null() {
        separate()
        appendASCII("null")
        needsComma = true
    }

    /// Writes an integer in decimal, without allocating.
    @inlinable
    public mutating func int(_ i: Int) {
        separate()
        appendInteger(i)
        needsComma = true
    }

    /// Splices already-encoded object members (`"a":1,"b":null`, not
    /// checked) as the first members of the object just begun; more members
    /// may follow.
    @inlinable
    public mutating func rawMembers(_ jsonBytes: UnsafeBufferPointer<UInt8>) {
        append(jsonBytes)
        needsComma = true
    }

    /// Splices an already-encoded JSON value (not checked) as the next value.
    @inlinable @inline(__always)
    public mutating func raw(_ jsonBytes: UnsafeBufferPointer<UInt8>) {
        separate()
        append(jsonBytes)
        needsComma = true
    }
}
