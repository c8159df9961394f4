/// A pure RESP2 parser: bytes in, one value (and how many bytes it took)
/// out, or "not yet", or a precise error. No I/O, no allocation beyond the
/// value itself, no trap on any input.
///
/// Incomplete input is not an error: the caller reads more and calls again
/// from the same start. Re-parsing is cheap where it matters: a bulk string
/// whose payload has not fully arrived is answered `nil` after reading only
/// its length line.
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
        var cursor = Cursor(bytes: bytes, start: start, limits: limits)
        guard let value = try cursor.value(depth: 0) else { return nil }
        return (value, cursor.index)
    }

    /// The same over an array (tests, small replies).
    public static func parse(
        _ bytes: [UInt8], from start: Int = 0, limits: RESPLimits = RESPLimits()
    ) throws(RESPParseError) -> (value: RESPValue, end: Int)? {
        try bytes.withUnsafeBufferPointer { (b) throws(RESPParseError) -> (value: RESPValue, end: Int)? in
            try parse(b, from: start, limits: limits)
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        let start: Int
        let limits: RESPLimits
        var index: Int

        init(bytes: UnsafeBufferPointer<UInt8>, start: Int, limits: RESPLimits) {
            self.bytes = bytes
            self.start = start
            self.limits = limits
            self.index = start
        }

        func error(_ kind: RESPParseError.Kind, _ at: Int) -> RESPParseError {
            RESPParseError(kind, at: at - start)
        }

        mutating func value(depth: Int) throws(RESPParseError) -> RESPValue? {
            guard index < bytes.count else { return nil }
            let type = bytes[index]
            let typeAt = index
            index += 1
            switch type {
            case UInt8(ascii: "+"):
                guard let line = try line() else { return nil }
                return .simple(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self))
            case UInt8(ascii: "-"):
                guard let line = try line() else { return nil }
                return .error(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self))
            case UInt8(ascii: ":"):
                guard let n = try integer() else { return nil }
                return .integer(n)
            case UInt8(ascii: "$"):
                let lengthAt = index
                guard let n = try integer() else { return nil }
                if n == -1 { return .bulk(nil) }
                if n < -1 { throw error(.negativeLength, lengthAt) }
                if n > limits.maxBulkBytes { throw error(.bulkTooLong, lengthAt) }
                // n ≤ maxBulkBytes ≤ Int.max / 2, so this cannot overflow.
                guard bytes.count - index >= n + 2 else { return nil }
                let payload = Array(UnsafeBufferPointer(rebasing: bytes[index..<(index + n)]))
                index += n
                guard bytes[index] == 13 else { throw error(.badLineEnd, index) }
                guard bytes[index + 1] == 10 else { throw error(.badLineEnd, index + 1) }
                index += 2
                return .bulk(payload)
            case UInt8(ascii: "*"):
                let countAt = index
                guard let n = try integer() else { return nil }
                if n == -1 { return .array(nil) }
                if n < -1 { throw error(.negativeLength, countAt) }
                if n > limits.maxElements { throw error(.tooManyElements, countAt) }
                if n > 0 && depth + 1 > limits.maxDepth { throw error(.tooDeep, typeAt) }
                // No reserveCapacity(n): a hostile count must not allocate
                // before its elements arrive.
                var elements: [RESPValue] = []
                for _ in 0..<n {
                    guard let element = try value(depth: depth + 1) else { return nil }
                    elements.append(element)
                }
                return .array(elements)
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
