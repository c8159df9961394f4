/// Where parsing stopped and why.
///
/// `offset` is a 0-based byte offset into the input given to ``JSONReader``.
/// The rules for where an error points:
/// - input that ends too early (an unterminated string, container, literal,
///   escape, number or UTF-8 sequence) points at the end of the input
///   (`offset == input.count`), so every proper prefix of a valid document
///   fails exactly at its end;
/// - an unexpected byte points at that byte (after skipping whitespace);
/// - a bad escape, including a lone surrogate, points at its backslash;
/// - invalid UTF-8 points at the first byte of the bad sequence;
/// - nesting too deep points at the bracket that opens one level too many.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 0-based byte offset into the input where parsing stopped.
    public var offset: Int
    /// A short lower-case English description, e.g. `expected a number, found 'x'`.
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "JSON syntax error at byte \(offset): \(message)" }
}

/// The kind of the next JSON value, as seen from its first byte.
public enum JSONKind: Sendable, Equatable {
    case object, array, string, number, bool, null
}
