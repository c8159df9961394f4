/// A forward-only cursor over UTF-8 JSON bytes (strict RFC 8259).
///
/// The reader never builds a tree: the caller pulls values in document order.
///
///     // {"x": 1, "tags": ["a"]}
///     var r = JSONReader(buffer)
///     try r.beginObject()
///     while let key = try r.nextKey() {
///         switch key {
///         case "x": x = try r.readNumber()
///         case "tags":
///             try r.beginArray()
///             while try r.nextElement() { tags.append(try r.readString()) }
///         default: try r.skipValue()
///         }
///     }
///     try r.finish()
///
/// The buffer need not be NUL-terminated; the reader never reads outside it.
/// Duplicate object keys are returned as they come; callers decide.
/// Calling a `read…` method on the wrong kind of value throws
/// (`expected a number, found '"'`); ``peek()`` tells the kind first.
///
/// Memory: no allocation per call except the `String`s returned (and one
/// small array when nesting exceeds 64 levels).
public struct JSONReader {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var position: Int
    @usableFromInline let maxDepth: Int
    /// Number of containers currently open (begun and not yet ended).
    @usableFromInline var depth: Int = 0
    /// Bit `d` is 1 when the container at depth `d` (0-based) is an object; depths < 64.
    @usableFromInline var shallowKinds: UInt64 = 0
    /// The same for depths ≥ 64, 64 per word.
    @usableFromInline var deepKinds: [UInt64] = []
    /// The kind of the innermost open container (``ContainerKind``), kept in a
    /// stored property so `nextElement`/`nextKey` check it with one compare.
    @usableFromInline var innermost: UInt8 = ContainerKind.none
    /// True just after `{` or `[` was consumed: the next member needs no comma.
    @usableFromInline var atContainerStart: Bool = false

    /// Creates a reader over `bytes`, which must stay valid while the reader is used.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - maxDepth: the deepest nesting of objects and arrays accepted
    ///     (a top-level `[]` is depth 1). Negative values act as 0.
    public init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 512) {
        self.bytes = bytes
        self.position = 0
        self.maxDepth = max(0, maxDepth)
    }

    /// The current byte offset: just past the last consumed byte.
    @inlinable public var offset: Int { position }

    /// The number of currently open containers.
    @inlinable public var currentDepth: Int { depth }

    /// A reading position saved by ``checkpoint`` for ``rewind(to:)``.
    public struct Checkpoint: Sendable {
        @usableFromInline let position: Int
        @usableFromInline let depth: Int
        @usableFromInline let shallowKinds: UInt64
        @usableFromInline let innermost: UInt8
        @usableFromInline let atContainerStart: Bool

        @inlinable
        init(position: Int, depth: Int, shallowKinds: UInt64, innermost: UInt8, atContainerStart: Bool) {
            self.position = position
            self.depth = depth
            self.shallowKinds = shallowKinds
            self.innermost = innermost
            self.atContainerStart = atContainerStart
        }
    }

    /// The current position, to come back to with ``rewind(to:)`` (cheaper
    /// than copying the reader: nothing is retained).
    @inlinable
    public var checkpoint: Checkpoint {
        Checkpoint(
            position: position, depth: depth, shallowKinds: shallowKinds, innermost: innermost,
            atContainerStart: atContainerStart)
    }

    /// Puts the reader back at `checkpoint`, to read the same bytes again.
    /// - Precondition: the containers open at the checkpoint are all still
    ///   open (the reader went no further than the end of the innermost).
    @inlinable
    public mutating func rewind(to checkpoint: Checkpoint) {
        // Internal: only the decoders rewind, to checkpoints inside the container they are reading.
        precondition(depth >= checkpoint.depth, "rewind(to:) past the end of a container open at the checkpoint")
        position = checkpoint.position
        depth = checkpoint.depth
        shallowKinds = checkpoint.shallowKinds
        innermost = checkpoint.innermost
        atContainerStart = checkpoint.atContainerStart
    }

    /// Skips whitespace and returns the kind of the next value without consuming it.
    /// - Throws: when the input ends or the next byte cannot start a value.
    /// - Complexity: O(whitespace skipped).
    @inlinable
    public mutating func peek() throws(JSONSyntaxError) -> JSONKind {
        skipWhitespace()
        guard position < bytes.count else { throw expected("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw expected("a value")
        }
    }

    /// Consumes `{` (after whitespace). Follow with ``nextKey()`` until it returns nil.
    /// - Throws: `expected an object` or `nesting deeper than N`.
    @inlinable
    public mutating func beginObject() throws(JSONSyntaxError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else {
            throw expected("an object")
        }
        try push(object: true)
        position += 1
        atContainerStart = true
    }

    /// Moves to the next member of the innermost open object.
    ///
    /// Consumes the separating `,` when needed, the key and the `:`.
    /// - Returns: the member's key (the caller must then read or skip its
    ///   value), or nil when the closing `}` was consumed.
    /// - Throws: on a missing comma or colon, a trailing comma, or when the
    ///   innermost open container is not an object.
    @inlinable
    public mutating func nextKey() throws(JSONSyntaxError) -> String? {
        guard let span = try nextKeySpan() else { return nil }
        return stringContent(span)
    }

    /// Like ``nextKey()``, without creating a `String`: the key as it stands
    /// between its quotes (validated, escapes not decoded) and whether it
    /// holds any backslash escape. The bytes are a view of the input.
    ///
    /// For matching keys against known ASCII names by their bytes; a key with
    /// `escaped` true may still spell such a name (`"\u0078"` is `"x"`).
    @inlinable @inline(__always)
    public mutating func nextKeyBytes() throws(JSONSyntaxError) -> (bytes: UnsafeBufferPointer<UInt8>, escaped: Bool)? {
        guard let span = try nextKeySpan() else { return nil }
        return (UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]), span.escaped)
    }

    /// ``nextKey()`` up to the decoding of the key: its content's range and
    /// whether it is escaped, or nil after the closing `}`.
    @inlinable @inline(__always)
    mutating func nextKeySpan() throws(JSONSyntaxError) -> (start: Int, end: Int, escaped: Bool)? {
        skipWhitespace()
        guard innermost == ContainerKind.object else { throw misuse("nextKey() called outside an object") }
        guard position < bytes.count else {
            throw expected(atContainerStart ? "a key or '}'" : "',' or '}'")
        }
        let b = bytes[position]
        if b == UInt8(ascii: "}") {
            position += 1
            pop()
            atContainerStart = false
            return nil
        }
        if atContainerStart {
            atContainerStart = false
            guard b == UInt8(ascii: "\"") else { throw expected("a key or '}'") }
        } else {
            guard b == UInt8(ascii: ",") else { throw expected("',' or '}'") }
            position += 1
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw expected("a key")
            }
        }
        let span = try scanString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw expected("':'")
        }
        position += 1
        return span
    }

    /// Consumes `[` (after whitespace). Follow with ``nextElement()`` until it returns false.
    /// - Throws: `expected an array` or `nesting deeper than N`.
    @inlinable
    public mutating func beginArray() throws(JSONSyntaxError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else {
            throw expected("an array")
        }
        try push(object: false)
        position += 1
        atContainerStart = true
    }

    /// Moves to the next element of the innermost open array.
    /// - Returns: true when an element follows (the separating `,` has been
    ///   consumed; the caller must read or skip the element), false when the
    ///   closing `]` was consumed.
    /// - Throws: on a missing comma, a trailing comma, or when the innermost
    ///   open container is not an array.
    @inlinable
    public mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard innermost == ContainerKind.array else { throw misuse("nextElement() called outside an array") }
        guard position < bytes.count else {
            throw expected(atContainerStart ? "a value or ']'" : "',' or ']'")
        }
        let b = bytes[position]
        if b == UInt8(ascii: "]") {
            position += 1
            pop()
            atContainerStart = false
            return false
        }
        if atContainerStart {
            atContainerStart = false
            return true
        }
        guard b == UInt8(ascii: ",") else { throw expected("',' or ']'") }
        position += 1
        skipWhitespace()
        guard position < bytes.count, bytes[position] != UInt8(ascii: "]") else {
            throw expected("a value")
        }
        return true
    }

    /// Reads `true` or `false`.
    @inlinable
    public mutating func readBool() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        atContainerStart = false
        guard position < bytes.count else { throw expected("a boolean") }
        switch bytes[position] {
        case UInt8(ascii: "t"):
            try consumeLiteral(0x74_72_75_65, length: 4)  // "true"
            return true
        case UInt8(ascii: "f"):
            try consumeLiteral(0x66_61_6C_73_65, length: 5)  // "false"
            return false
        default:
            throw expected("a boolean")
        }
    }

    /// Reads `null`.
    @inlinable
    public mutating func readNull() throws(JSONSyntaxError) {
        skipWhitespace()
        atContainerStart = false
        guard position < bytes.count, bytes[position] == UInt8(ascii: "n") else {
            throw expected("null")
        }
        try consumeLiteral(0x6E_75_6C_6C, length: 4)  // "null"
    }

    /// Checks that only whitespace remains and every container was closed.
    /// - Throws: `expected end of input, found …` at the first extra byte.
    public mutating func finish() throws(JSONSyntaxError) {
        skipWhitespace()
        guard depth == 0 else { throw misuse("finish() called with \(depth) open container(s)") }
        guard position == bytes.count else { throw expected("end of input") }
    }
}
