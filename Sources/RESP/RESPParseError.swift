/// Why bytes are not a RESP2 value, and where: `offset` is the index of the
/// first byte at fault, counted from the start of the value being parsed.
public struct RESPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A value began with a byte that is not `+ - : $ *`.
        case unknownType(UInt8)
        /// A length or integer line is empty, has a non-digit, or overflows.
        case badInteger
        /// A bulk or array length below -1.
        case negativeLength
        /// A bulk string longer than ``RESPLimits/maxBulkBytes``.
        case bulkTooLong
        /// An array with more than ``RESPLimits/maxElements`` elements.
        case tooManyElements
        /// Arrays nested deeper than ``RESPLimits/maxDepth``.
        case tooDeep
        /// A line longer than ``RESPLimits/maxLineBytes`` before its CRLF.
        case lineTooLong
        /// A CR not followed by LF, a bare LF in a line, or a bulk payload
        /// not followed by CRLF.
        case badLineEnd
        /// A reply of more than ``RESPLimits/maxReplyBytes`` bytes in all.
        case replyTooLong
    }

    public var kind: Kind
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { "RESP: \(kind) at byte \(offset)" }
}

/// Bounds on what one reply may hold, so that no reply can exhaust memory
/// or the stack.
public struct RESPLimits: Sendable {
    /// Bytes of one bulk string. Default 512 MiB (Redis' own
    /// `proto-max-bulk-len`); the client sets it to the body limit.
    public var maxBulkBytes = 512 << 20
    /// Elements of one array. Default 1,048,576.
    public var maxElements = 1 << 20
    /// Nesting of arrays. Default 16 (Redis replies nest 2 or 3 deep).
    public var maxDepth = 16
    /// Bytes of one simple-string, error or integer line. Default 65,536.
    public var maxLineBytes = 1 << 16
    /// Bytes of one whole reply, every element counted: without it, arrays
    /// of arrays could arrive without end. It bounds the bytes read, not
    /// the memory of the values they make (an element of 4 bytes, `*0\r\n`,
    /// becomes a value of some 40). Default 513 MiB (``maxBulkBytes`` and
    /// 1 MiB); the client sets it so.
    public var maxReplyBytes = (512 << 20) + (1 << 20)
    public init() {}
}
