/// One value of the Redis serialization protocol, version 2 (RESP2).
///
/// A server's error reply (`-ERR …`) is a value, not a thrown error: a
/// pipeline of many commands answers each in turn, and one failing command
/// does not fail the others.
public enum RESPValue: Equatable, Sendable {
    /// `+OK\r\n`: a line of text without CR or LF.
    case simple(String)
    /// `-ERR message\r\n`: the server refused the command.
    case error(String)
    /// `:42\r\n`: a signed 64-bit integer.
    case integer(Int)
    /// `$3\r\nfoo\r\n`, or `$-1\r\n` (nil): binary-safe bytes.
    case bulk([UInt8]?)
    /// `*2\r\n…`, or `*-1\r\n` (nil): values, possibly nested.
    case array([RESPValue]?)

    /// The bytes of a bulk string, the UTF-8 of a simple string; else nil.
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let b): return b
        case .simple(let s): return Array(s.utf8)
        default: return nil
        }
    }

    /// The value as text (bulk or simple string), else nil.
    public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// An integer reply, or a bulk string holding a decimal integer.
    public var int: Int? {
        switch self {
        case .integer(let n): return n
        case .bulk(let b?): return Int(String(decoding: b, as: UTF8.self))
        default: return nil
        }
    }

    /// The elements of a non-nil array, else nil.
    public var elements: [RESPValue]? {
        if case .array(let a?) = self { return a }
        return nil
    }

    /// The message of an error reply, else nil.
    public var errorMessage: String? {
        if case .error(let m) = self { return m }
        return nil
    }
}
