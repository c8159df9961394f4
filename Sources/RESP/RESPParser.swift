/// A pure RESP2 parser: bytes in, one value (and how many bytes it took)
/// out, or "not yet", or a precise error. No I/O, no allocation beyond the
/// value itself, no trap on any input.
///
/// ``parse(_:from:limits:)`` reads a value that is all there; a reply that
/// arrives over many reads goes through ``RESPReader``, which keeps what
/// it has read, so each byte is parsed once.
public enum RESPParser {
    /// Parses the value that starts at `bytes[start]`.
    /// - Returns: the value and the index just past it, or nil when the
    ///   bytes end before the value does.
    /// - Throws: ``RESPParseError`` with the offset (from `start`) of the
    ///   first byte at fault.
    /// - Complexity: O(n) in the bytes of the value.
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, limits: RESPLimits = RESPLimits()
    ) throws(RESPParseError) -> (value: RESPValue, end: Int)? {
        var reader = RESPReader(limits: limits)
        let (value, end) = try reader.read(bytes, from: start)
        return value.map { ($0, end) }
    }

    /// The same over an array (tests, small replies).
    public static func parse(
        _ bytes: [UInt8], from start: Int = 0, limits: RESPLimits = RESPLimits()
    ) throws(RESPParseError) -> (value: RESPValue, end: Int)? {
        try bytes.withUnsafeBufferPointer { (b) throws(RESPParseError) -> (value: RESPValue, end: Int)? in
            try parse(b, from: start, limits: limits)
        }
    }

    /// One item of a reply at `index`: a whole scalar, or an array's head.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Where byte 0 of the reply would be (errors count from it).
        let origin: Int
        let limits: RESPLimits
        var index: Int

        init(bytes: UnsafeBufferPointer<UInt8>, at index: Int, origin: Int, limits: RESPLimits) {
            self.bytes = bytes
            self.origin = origin
            self.limits = limits
            self.index = index
        }

        func error(_ kind: RESPParseError.Kind, _ at: Int) -> RESPParseError {
            RESPParseError(kind, at: at - origin)
        }

        enum Item {
            case value(RESPValue)
            /// `*n` with n ≥ 1: n elements follow.
            case arrayHead(count: Int, at: Int)
        }

        /// The item at `index`, which it consumes, or nil (nothing consumed)
        /// when the bytes end first.
        mutating func item() throws(RESPParseError) -> Item? {
            let from = index
            guard let item = try readItem() else {
                index = from
                return nil
            }
            return item
        }

        private mutating func readItem() throws(RESPParseError) -> Item? {
            guard index < bytes.count else { return nil }
            let type = bytes[index]
            let typeAt = index
            index += 1
            switch type {
            case UInt8(ascii: "+"):
                guard let line = try line() else { return nil }
                return .value(.simple(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self)))
            case UInt8(ascii: "-"):
                guard let line = try line() else { return nil }
                return .value(.error(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self)))
            case UInt8(ascii: ":"):
                guard let n = try integer() else { return nil }
                return .value(.integer(n))
            case UInt8(ascii: "$"):
                let lengthAt = index
                guard let n = try integer() else { return nil }
                if n == -1 { return .value(.bulk(nil)) }
                if n < -1 { throw error(.negativeLength, lengthAt) }
                if n > limits.maxBulkBytes { throw error(.bulkTooLong, lengthAt) }
                // n ≤ maxBulkBytes ≤ Int.max / 2, so this cannot overflow.
                guard bytes.count - index >= n + 2 else { return nil }
                let payload = Array(UnsafeBufferPointer(rebasing: bytes[index..<(index + n)]))
                index += n
                guard bytes[index] == 13 else { throw error(.badLineEnd, index) }
                guard bytes[index + 1] == 10 else { throw error(.badLineEnd, index + 1) }
                index += 2
                return .value(.bulk(payload))
            case UInt8(ascii: "*"):
                let countAt = index
                guard let n = try integer() else { return nil }
                if n == -1 { return .value(.array(nil)) }
                if n < -1 { throw error(.negativeLength, countAt) }
                if n > limits.maxElements { throw error(.tooManyElements, countAt) }
                return n == 0 ? .value(.array([])) : .arrayHead(count: n, at: typeAt)
            default:
                throw error(.unknownType(type), typeAt)
            }
        }

        /// The range of a line's text up to its CRLF, which it consumes.
        mutating func line() throws(RESPParseError) -> Range<Int>? {
            let from = index
            var i = index
            while i < bytes.count {
                let c = bytes[i]
                if c == 13 {
                    guard i + 1 < bytes.count else { return nil }
                    guard bytes[i + 1] == 10 else { throw error(.badLineEnd, i + 1) }
                    index = i + 2
                    return from..<i
                }
                if c == 10 { throw error(.badLineEnd, i) }
                if i - from >= limits.maxLineBytes { throw error(.lineTooLong, i) }
                i += 1
            }
            if i - from > limits.maxLineBytes { throw error(.lineTooLong, from + limits.maxLineBytes) }
            return nil
        }

        /// A signed decimal line: `-?[0-9]+`, within Int.
        mutating func integer() throws(RESPParseError) -> Int? {
            let from = index
            guard let range = try line() else {
                // Reject garbage before the line ends, so a stream of
                // non-digits is an error at once, not a wait.
                try checkDigits(from..<bytes.count, complete: false)
                return nil
            }
            return try checkDigits(range, complete: true)
        }

        @discardableResult
        func checkDigits(_ range: Range<Int>, complete: Bool) throws(RESPParseError) -> Int? {
            var i = range.lowerBound
            var negative = false
            if i < range.upperBound, bytes[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            if complete && i == range.upperBound { throw error(.badInteger, i) }
            var n = 0
            while i < range.upperBound {
                let c = bytes[i]
                if !complete && (c == 13 || c == 10) { return nil }  // the line's end, still incomplete
                guard c >= 48 && c <= 57 else { throw error(.badInteger, i) }
                let (m, o1) = n.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(Int(c - 48)) : m.addingReportingOverflow(Int(c - 48))
                guard !o1 && !o2 else { throw error(.badInteger, i) }
                n = s
                i += 1
            }
            return n
        }
    }
}
