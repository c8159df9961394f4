import HitJSON
import SceneCodec

/// A stream message's `seq`: a number or a string the client chose,
/// echoed in the answer (SPEC §11.2).
package enum StreamSeq: Equatable {
    case number(Double)
    case string(String)

    func write(to w: inout JSONWriter) {
        switch self {
        case .number(let n): w.number(n)
        case .string(let s): w.string(s)
        }
    }
}

/// Decodes one stream message: exactly a `POST …/hit` body (the same
/// fields, defaults and problems, with the same pointers) plus `seq`.
package enum StreamMessage {
    /// The query and `seq` of `bytes`. `fastPath: false` skips
    /// ``plainWithSeq(_:)`` (for tests: both must give the same query and `seq`).
    /// - Throws: the failure `POST …/hit` would report for the same body
    ///   (a `seq` that is neither a number nor a string is one more issue).
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, fastPath: Bool = true) throws(DecodeFailure) -> (HitQuery, StreamSeq?) {
        if fastPath, let plain = plainWithSeq(bytes) { return plain }
        if !contains(bytes, "seq") {
            return (try HitRequestDecoder.decodeHit(bytes), nil)  // the HTTP body's own path, fast path included
        }
        var seq: StreamSeq?
        var d = DocumentDecoder(bytes)
        let query = try d.run { d in
            var query = HitQuery(point: PointQuery(x: 0, y: 0))
            query.point =
                try d.pointQuery { d, key in
                    switch key {
                    case "trace": query.trace = try d.bool() ?? true
                    case "all": query.all = try d.bool() ?? false
                    case "seq": seq = try d.seq()
                    default: return false
                    }
                    return true
                } ?? query.point
            return query
        }
        return (query, seq)
    }

    /// The most digits a `seq` read by ``plainWithSeq(_:)`` has: every
    /// integer of 15 digits is exact as a Double.
    static let plainSeqDigits = 15

    /// A plain `POST …/hit` body (``JSONReader/plainHitQuery()``) with
    /// `,"seq":N}` at its very end, N a JSON integer of at most
    /// ``plainSeqDigits`` digits, as the usual message is written: read
    /// without the reporting decoder, as the body without its last member
    /// and that integer. Nil for any other message (the full decoder then
    /// reads it and reports what is wrong).
    ///
    /// In valid JSON, those bytes at the end can only be the last member
    /// of the top-level object (the quotes around `seq` are unescaped, and
    /// nothing after them is in a string); a duplicate `seq` before it
    /// makes the rest not plain; and a message that is not valid JSON
    /// stays not valid without its last member, or is not plain, so both
    /// paths give the same query or this gives nil.
    /// - Complexity: O(bytes), one copy of them on the stack.
    static func plainWithSeq(_ bytes: UnsafeBufferPointer<UInt8>) -> (HitQuery, StreamSeq?)? {
        let n = bytes.count
        guard n >= 9, bytes[n - 1] == UInt8(ascii: "}") else { return nil }
        // The digits before the final brace.
        var k = n - 2
        while k >= 0, bytes[k] >= UInt8(ascii: "0"), bytes[k] <= UInt8(ascii: "9") { k -= 1 }
        let digits = n - 2 - k
        guard digits >= 1, digits <= plainSeqDigits, k >= 6 else { return nil }
        if digits > 1 && bytes[k + 1] == UInt8(ascii: "0") { return nil }  // a leading zero is no JSON number
        let member: StaticString = #","seq":"#
        let start = k + 1 - member.utf8CodeUnitCount
        guard start >= 1 else { return nil }
        for i in 0..<member.utf8CodeUnitCount where bytes[start + i] != member.utf8Start[i] { return nil }
        var seq = 0.0
        for i in (k + 1)..<(n - 1) { seq = seq * 10 + Double(bytes[i] &- UInt8(ascii: "0")) }
        let query: HitQuery? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: start + 1) { body in
            guard let base = body.baseAddress, let source = bytes.baseAddress else { return nil }
            base.update(from: source, count: start)
            base[start] = UInt8(ascii: "}")
            var reader = JSONReader(UnsafeBufferPointer(start: base, count: start + 1), maxDepth: DocumentDecoder.maxDepth)
            return reader.plainHitQuery()
        }
        guard let query else { return nil }
        return (query, .number(seq))
    }

    /// The `seq` of a message that failed to decode, if it can be read
    /// (the object's top-level `seq`, a number or a string), else nil.
    static func seqOnly(_ bytes: UnsafeBufferPointer<UInt8>) -> StreamSeq? {
        var reader = JSONReader(bytes)
        do {
            guard try reader.peek() == .object else { return nil }
            try reader.beginObject()
            while let key = try reader.nextKey() {
                guard key == "seq" else {
                    try reader.skipValue()
                    continue
                }
                switch try reader.peek() {
                case .number:
                    let n = try reader.readNumber()
                    return n.isFinite ? .number(n) : nil
                case .string: return .string(try reader.readString())
                default: return nil
                }
            }
        } catch {
            return nil
        }
        return nil
    }

    /// Whether `needle` occurs in `bytes` (a quick test before the slower path).
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        let n = needle.utf8CodeUnitCount
        guard bytes.count >= n else { return false }
        let first = needle.utf8Start[0]
        var i = 0
        while i <= bytes.count - n {
            if bytes[i] == first {
                var k = 1
                while k < n && bytes[i + k] == needle.utf8Start[k] { k += 1 }
                if k == n { return true }
            }
            i += 1
        }
        return false
    }
}

extension DocumentDecoder {
    /// A `seq`: a finite number or a string.
    mutating func seq() throws -> StreamSeq? {
        switch try reader.peek() {
        case .number: return try number().map(StreamSeq.number)
        case .string: return try string().map(StreamSeq.string)
        default:
            try mismatch("a number or a string")
            return nil
        }
    }
}
