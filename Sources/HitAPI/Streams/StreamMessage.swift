import HitJSON
import SceneCodec

/// A stream message's `seq`: a number or a string the client chose,
/// echoed in the answer (SPEC §11.2).
enum StreamSeq: Equatable {
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
enum StreamMessage {
    /// The query and `seq` of `bytes`.
    /// - Throws: the failure `POST …/hit` would report for the same body
    ///   (a `seq` that is neither a number nor a string is one more issue).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodeFailure) -> (HitQuery, StreamSeq?) {
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
