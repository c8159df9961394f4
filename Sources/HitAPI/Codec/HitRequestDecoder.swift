import HitJSON
import HitRouting

/// One point to route (SPEC §4.2), with its optional pointer session.
public struct PointQuery: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var pointer: String?
    public var phase: PointerSessions.Phase?

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
public struct BatchQuery: Sendable, Equatable {
    public var points: [PointQuery] = []
    /// Default false: a batch answers many points, briefly.
    public var trace = false
    public var all = false
}

/// Decodes hit and batch requests, reporting every problem with a pointer.
public enum HitRequestDecoder {
    /// A `…/hit` body.
    public static func decodeHit(_ bytes: UnsafeBufferPointer<UInt8>) throws(DecodeFailure) -> HitQuery {
        var d = DocumentDecoder(bytes)
        return try d.run { d in
            var query = HitQuery(point: PointQuery(x: 0, y: 0))
            query.point = try d.pointQuery { d, key in
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
    public static func decodeBatch(_ bytes: UnsafeBufferPointer<UInt8>, maxPoints: Int) throws(DecodeFailure) -> BatchQuery {
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
                    while try d.reader.nextElement() {
                        guard batch.points.count < maxPoints else {
                            try d.issue("more than \(maxPoints) points in one batch")
                            throw DocumentDecoder.Abort()
                        }
                        d.push(batch.points.count)
                        let p = try d.pointQuery { _, _ in false }
                        d.pop()
                        batch.points.append(p ?? PointQuery(x: 0, y: 0))
                    }
                default: try d.unknown(key, in: "a batch request (points, trace, all)")
                }
            }
            if !seen.contains("points") { try d.issue("is required", [.key("points")]) }
            return batch
        }
    }

    /// A `GET …/hit` query string: `x`, `y`, `trace`, `all`, `pointer`,
    /// `phase`. Problems point at `/name` of the parameter.
    public static func decodeQueryString(_ query: String?) throws(DecodeFailure) -> HitQuery {
        var issues: [ValidationIssue] = []
        var values: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0]) ?? ""
            let value = parts.count > 1 ? percentDecoded(parts[1]) : ""
            guard ["x", "y", "trace", "all", "pointer", "phase"].contains(name) else {
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
        hit.point.pointer = values["pointer"]
        if let phase = values["phase"] {
            hit.point.phase = PointerSessions.Phase(rawValue: phase)
            if hit.point.phase == nil {
                issues.append(ValidationIssue(pointer: "/phase", message: "must be one of \"down\", \"move\", \"up\", \"cancel\""))
            }
        }
        issues += pointerIssues(hit.point, at: "")
        guard issues.isEmpty else { throw .invalid(issues) }
        return hit
    }

    /// Checks that `pointer` and `phase` come together and `pointer` is 1…128 characters.
    static func pointerIssues(_ p: PointQuery, at base: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if let pointer = p.pointer, pointer.isEmpty || pointer.utf8.count > 128 {
            issues.append(ValidationIssue(pointer: base + "/pointer", message: "must be 1 to 128 bytes"))
        }
        if (p.pointer == nil) != (p.phase == nil) {
            let missing = p.pointer == nil ? "pointer" : "phase"
            issues.append(ValidationIssue(pointer: base + "/\(missing)", message: "pointer and phase go together: \(missing) is missing"))
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
    /// A point object `{x, y, pointer?, phase?}`; `extra` handles other keys
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
            default:
                if try !extra(&self, key) { try unknown(key, in: "a point (x, y, pointer, phase)") }
            }
        }
        for name in ["x", "y"] where !seen.contains(name) { try issue("is required", [.key(name)]) }
        // Checked relative to "" so that no pointer string is built unless there is a problem.
        for issue in HitRequestDecoder.pointerIssues(p, at: "") {
            try self.issue(issue.message, [.key(String(issue.pointer.dropFirst()))])
        }
        return p
    }
}
