/// Appends compact JSON to a byte array; commas and colons are placed automatically.
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
public struct JSONWriter {
    /// The JSON written so far.
    public var bytes: [UInt8]
    /// True when the next key or value must be preceded by a comma.
    @usableFromInline var needsComma = false

    /// Creates an empty writer reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    @inlinable @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes `{`.
    @inlinable
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes `}`.
    @inlinable
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`.
    @inlinable
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Writes `]`.
    @inlinable
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object member's key and the `:`; a value must follow.
    @inlinable
    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key known when the program is built (ASCII with
    /// nothing to escape, which is not checked), without the escaping scan.
    @inlinable
    public mutating func field(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
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
        bytes.append(contentsOf: jsonBytes)
        needsComma = true
    }

    /// Splices an already-encoded JSON value (not checked) as the next value.
    @inlinable
    public mutating func raw(_ jsonBytes: some Collection<UInt8>) {
        separate()
        bytes.append(contentsOf: jsonBytes)
        needsComma = true
    }
}
