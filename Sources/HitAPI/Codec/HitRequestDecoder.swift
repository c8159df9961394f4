import HitJSON
import HitRouting
import SceneCodec

/// One point to route (SPEC §4.2), with its optional pointer session
/// (SPEC §5, §11.1).
public struct PointQuery: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var pointer: String?
    public var phase: PointerSessions.Phase?
    /// Given only with `pointer` and `phase`; nil means `mouse`.
    public var pointerType: PointerType?

    public var point: Point { Point(x, y) }
}

/// `POST /scenes/{id}/hit` or `GET …/hit?…`.
public struct HitQuery: Sendable, Equatable {
    public var point: PointQuery
    /// Default true.
    public var trace = true
    /// Default false.
    public var all = false
}

/// `POST /scenes/{id}/hits`.
///
/// The points are plain values, and the few that carry a pointer event
/// are listed apart, so that a batch holds (and frees) no string per point.
public struct BatchQuery: Sendable, Equatable {
    /// Every point in order, scene coordinates.
    public var points: [Point] = []
    /// The points that carry `pointer` and `phase`, by ascending index.
    public var pointerEvents: [PointerEvent] = []
    /// Default false: a batch answers many points, briefly.
    public var trace = false
    public var all = false

    /// Point `index`'s pointer, phase and pointer type.
    public struct PointerEvent: Sendable, Equatable {
        public var index: Int
        public var pointer: String
        public var phase: PointerSessions.Phase
        public var type: PointerType = .mouse
    }

    /// Whether some event needs more than the `read` scope (SPEC §8: every
    /// phase but `hover`).
    public var needsInteract: Bool { pointerEvents.contains { $0.phase != .hover } }

    mutating func append(_ q: PointQuery) {
        if let pointer = q.pointer, let phase = q.phase {
            pointerEvents.append(PointerEvent(index: points.count, pointer: pointer, phase: phase, type: q.pointerType ?? .mouse))
        }
        points.append(q.point)
    }
}

/// Decodes hit and batch requests, reporting every problem with a pointer.
public enum HitRequestDecoder {
    /// A `…/hit` body.
    ///
    /// A plain body (see ``JSONReader/plainHitQuery()``) is read in one
    /// pass without key strings; any other goes through the reporting
    /// decoder. `fastPath: false` uses the latter always (for tests: both
    /// must give the same query or the same failure).
    public static func decodeHit(_ bytes: UnsafeBufferPointer<UInt8>, fastPath: Bool = true) throws(DecodeFailure) -> HitQuery {
        if fastPath {
            if let query = CompactHitBody.query(bytes) { return query }
            var plain = JSONReader(bytes, maxDepth: DocumentDecoder.maxDepth)
            if let query = plain.plainHitQuery() { return query }
        }
        var d = DocumentDecoder(bytes)
        return try d.run { d in
            var query = HitQuery(point: PointQuery(x: 0, y: 0))
            query.point =
                try d.pointQuery { d, key in
                    switch key {
                    case "trace": query.trace = try d.bool() ?? true
                    case "all": query.all = try d.bool() ?? false
                    default: return false
                    }
                    return true
                } ?? query.point
            return query
        }
    }

    /// A `…/hits` body with at most `maxPoints` points.
    ///
    /// Points are read by ``DocumentDecoder/plainPointQuery()`` where they
    /// can be, else by the fully reporting ``DocumentDecoder/pointQuery(_:)``;
    /// `fastPoints: false` uses the latter for every point (for tests: both
    /// must give the same batch or the same failure).
    public static func decodeBatch(
        _ bytes: UnsafeBufferPointer<UInt8>, maxPoints: Int, fastPoints: Bool = true
    ) throws(DecodeFailure) -> BatchQuery {
        var d = DocumentDecoder(bytes)
        return try d.run { d in
            var batch = BatchQuery()
            guard try d.beginObject() else { return batch }
            var seen = d.borrowKeys()
            defer { d.returnKeys(seen) }
            while let key = try d.nextMember(&seen) {
                switch key {
                case "trace": batch.trace = try d.bool() ?? false
                case "all": batch.all = try d.bool() ?? false
                case "points":
                    guard try d.reader.peek() == .array else {
                        try d.mismatch("an array of points")
                        continue
                    }
                    try d.reader.beginArray()
                    // The shortest point, {"x":0,"y":0}, takes 13 bytes and a comma:
                    // room for as many as the body can hold, up to 4096 (past
                    // that, growing costs little, and a body of whitespace
                    // reserves nothing big).
                    let room = (bytes.count - d.reader.offset) / 14 + 1
                    batch.points.reserveCapacity(min(maxPoints, room, 4096))
                    while try d.reader.nextElement() {
                        guard batch.points.count < maxPoints else {
                            try d.issue("more than \(maxPoints) points in one batch")
                            throw DocumentDecoder.Abort()
                        }
                        if fastPoints, let p = d.plainPointQuery() {
                            batch.append(p)
                            continue
                        }
                        d.push(batch.points.count)
                        let p = try d.pointQuery { _, _ in false }
                        d.pop()
                        batch.append(p ?? PointQuery(x: 0, y: 0))
                    }
                default: try d.unknown(key, in: "a batch request (points, trace, all)")
                }
            }
            if !seen.contains("points") { try d.issue("is required", [.key("points")]) }
            return batch
        }
    }

    /// The parameters of a query string by name, percent-decoded. An
    /// unknown name, a repeated one or a bad escape is an issue at `/<name>`
    /// (and the parameter is left out).
    static func queryParameters(_ query: String?, allowed: [String], issues: inout [ValidationIssue]) -> [String: String] {
        var values: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0]) ?? ""
            let value = parts.count > 1 ? percentDecoded(parts[1]) : ""
            guard allowed.contains(name) else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "unknown query parameter \"\(name)\""))
                continue
            }
            guard values[name] == nil else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "given more than once"))
                continue
            }
            guard let value else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "bad percent-encoding"))
                continue
            }
            values[name] = value
        }
        return values
    }

    /// A `GET …/hit` query string: `x`, `y`, `trace`, `all`; `pointer`,
    /// `phase` and `pointerType` are refused (an issue each). Problems
    /// point at `/name` of the parameter.
    public static func decodeQueryString(_ query: String?) throws(DecodeFailure) -> HitQuery {
        var issues: [ValidationIssue] = []
        let values = queryParameters(query, allowed: ["x", "y", "trace", "all", "pointer", "phase", "pointerType"], issues: &issues)
        func number(_ name: String) -> Double? {
            guard let text = values[name] else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "is required"))
                return nil
            }
            guard let v = parseJSONNumber(text), v.isFinite else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "must be a finite number"))
                return nil
            }
            return v
        }
        func flag(_ name: String, default value: Bool) -> Bool {
            switch values[name] {
            case nil: return value
            case "1", "true": return true
            case "0", "false": return false
            default:
                issues.append(ValidationIssue(pointer: "/\(name)", message: "must be 0, 1, true or false"))
                return value
            }
        }
        var hit = HitQuery(point: PointQuery(x: number("x") ?? 0, y: number("y") ?? 0))
        hit.trace = flag("trace", default: true)
        hit.all = flag("all", default: false)
        // GET and HEAD change nothing (RFC 9110 §9.2.1): pointer phases,
        // which capture and drag, come with POST.
        for name in ["pointer", "phase", "pointerType"] where values[name] != nil {
            issues.append(
                ValidationIssue(
                    pointer: "/\(name)", message: "pointer phases change the scene: send them with POST …/hit, not GET or HEAD"))
        }
        guard issues.isEmpty else { throw .invalid(issues) }
        return hit
    }

    /// Checks that `pointer` and `phase` come together, `pointer` is 1…128
    /// characters, and `pointerType` comes only with them.
    static func pointerIssues(_ p: PointQuery, at base: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if let pointer = p.pointer, pointer.isEmpty || pointer.utf8.count > 128 {
            issues.append(ValidationIssue(pointer: base + "/pointer", message: "must be 1 to 128 bytes"))
        }
        if (p.pointer == nil) != (p.phase == nil) {
            let missing = p.pointer == nil ? "pointer" : "phase"
            issues.append(ValidationIssue(pointer: base + "/\(missing)", message: "pointer and phase go together: \(missing) is missing"))
        }
        if p.pointerType != nil && p.pointer == nil && p.phase == nil {
            issues.append(ValidationIssue(pointer: base + "/pointerType", message: "describes a pointer: give pointer and phase with it"))
        }
        return issues
    }

    /// A JSON-grammar number (`120`, `-0.5`, `1e3`), or nil.
    static func parseJSONNumber(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        bytes.append(0x20)  // a terminator the reader skips
        return bytes.withUnsafeBufferPointer { buffer -> Double? in
            var reader = JSONReader(buffer)
            guard (try? reader.peek()) == .number, let v = try? reader.readNumber(), (try? reader.finish()) != nil
            else { return nil }
            return v
        }
    }

    /// `application/x-www-form-urlencoded` decoding of one component (`+` is a space).
    static func percentDecoded(_ s: Substring) -> String? {
        Route.percentDecoded(Substring(String(s.map { $0 == "+" ? " " : $0 })))
    }
}

extension DocumentDecoder {
    /// A point object `{x, y, pointer?, phase?, pointerType?}`; `extra` handles other keys
    /// (returning false for unknown ones). Nil when it is not an object.
    mutating func pointQuery(_ extra: (inout DocumentDecoder, String) throws -> Bool) throws -> PointQuery? {
        guard try beginObject() else { return nil }
        var p = PointQuery(x: 0, y: 0)
        var seen = borrowKeys()
        defer { returnKeys(seen) }
        while let key = try nextMember(&seen) {
            switch key {
            case "x": p.x = try number() ?? 0
            case "y": p.y = try number() ?? 0
            case "pointer": p.pointer = try string()
            case "phase": p.phase = try enumeration(PointerSessions.Phase.self)
            case "pointerType": p.pointerType = try enumeration(PointerType.self)
            default:
                if try !extra(&self, key) { try unknown(key, in: "a point (x, y, pointer, phase, pointerType)") }
            }
        }
        if !seen.contains("x") { try issue("is required", [.key("x")]) }
        if !seen.contains("y") { try issue("is required", [.key("y")]) }
        // Checked relative to "" so that no pointer string is built unless there is a problem.
        for issue in HitRequestDecoder.pointerIssues(p, at: "") {
            try self.issue(issue.message, [.key(String(issue.pointer.dropFirst()))])
        }
        return p
    }
}

extension DocumentDecoder {
    /// A point object read without building key strings, when it is plain:
    /// keys spelt without escapes, each of `x`, `y`, `pointer`, `phase`,
    /// `pointerType` at most once, in any order, with `x` and `y` present,
    /// finite numbers for them, and a valid `pointer` and `phase` together
    /// (with a valid `pointerType` or none) or none of the three.
    ///
    /// Anything else — another key, a duplicate, an escaped key, a value of
    /// the wrong type, a syntax error — gives nil with the reader put back at
    /// the value, for ``pointQuery(_:)`` to read and report in full. This path
    /// reports nothing itself, so the answers and problems are the same
    /// either way.
    mutating func plainPointQuery() -> PointQuery? {
        // The usual point, `{"x":…,"y":…}`, in one pass over its bytes.
        if let (x, y) = reader.readPlainXY() { return PointQuery(x: x, y: y) }
        let start = reader.checkpoint
        var flags: HitQuery?
        if let p = try? reader.readPlainPoint(&flags) { return p }
        reader.rewind(to: start)
        return nil
    }
}

/// The plain paths on the reader itself: a plain `…/hit` body needs no
/// `DocumentDecoder` (its pointers and issues are only for bodies that
/// are not plain).
extension JSONReader {
    /// A whole `…/hit` body read like ``DocumentDecoder/plainPointQuery()``, where `trace`
    /// and `all` may also appear once each, as `true` or `false`; nil when
    /// the body is anything else (the reporting decoder then reads it).
    mutating func plainHitQuery() -> HitQuery? {
        var query: HitQuery? = HitQuery(point: PointQuery(x: 0, y: 0))
        guard let p = try? readPlainPoint(&query), (try? finish()) != nil, var query else { return nil }
        query.point = p
        return query
    }

    /// Bits of the keys ``readPlainPoint(_:)`` knows.
    private static let xBit: UInt8 = 1, yBit: UInt8 = 2, pointerBit: UInt8 = 4, phaseBit: UInt8 = 8
    private static let traceBit: UInt8 = 16, allBit: UInt8 = 32, pointerTypeBit: UInt8 = 64

    /// The body of the plain paths: nil (or a syntax error) as soon as the
    /// point is not plain; the reader is then somewhere inside it. With
    /// `hit` non-nil, `trace` and `all` are read into it too.
    ///
    /// Values are read without `peek()` first: one of the wrong kind makes the
    /// reader throw, which sends the point to `pointQuery` all the same.
    fileprivate mutating func readPlainPoint(_ hit: inout HitQuery?) throws(JSONSyntaxError) -> PointQuery? {
        try beginObject()
        var p = PointQuery(x: 0, y: 0)
        var seen: UInt8 = 0
        while let (key, escaped) = try nextKeyBytes() {
            guard !escaped else { return nil }
            let bit = JSONReader.plainPointKey(key)
            guard bit != 0, seen & bit == 0 else { return nil }
            seen |= bit
            switch bit {
            case JSONReader.xBit, JSONReader.yBit:
                let v = try readNumber()
                guard v.isFinite else { return nil }
                if bit == JSONReader.xBit { p.x = v } else { p.y = v }
            case JSONReader.pointerBit:
                p.pointer = try readString()
            case JSONReader.phaseBit:
                guard let phase = PointerSessions.Phase(rawValue: try readString()) else { return nil }
                p.phase = phase
            case JSONReader.pointerTypeBit:
                guard let type = PointerType(rawValue: try readString()) else { return nil }
                p.pointerType = type
            default:
                guard hit != nil else { return nil }
                let value = try readBool()
                if bit == JSONReader.traceBit { hit?.trace = value } else { hit?.all = value }
            }
        }
        guard seen & (JSONReader.xBit | JSONReader.yBit) == JSONReader.xBit | JSONReader.yBit
        else { return nil }
        if seen & (JSONReader.pointerBit | JSONReader.phaseBit | JSONReader.pointerTypeBit) != 0 {
            guard HitRequestDecoder.pointerIssues(p, at: "").isEmpty else { return nil }
        }
        return p
    }

    /// The bit of a point key given by its raw bytes, or 0 for any other key.
    @inline(__always)
    private static func plainPointKey(_ key: UnsafeBufferPointer<UInt8>) -> UInt8 {
        switch key.count {
        case 1:
            switch key[0] {
            case UInt8(ascii: "x"): return xBit
            case UInt8(ascii: "y"): return yBit
            default: return 0
            }
        case 3: return key.equals("all") ? allBit : 0
        case 5: return key.equals("phase") ? phaseBit : key.equals("trace") ? traceBit : 0
        case 7: return key.equals("pointer") ? pointerBit : 0
        case 11: return key.equals("pointerType") ? pointerTypeBit : 0
        default: return 0
        }
    }
}
