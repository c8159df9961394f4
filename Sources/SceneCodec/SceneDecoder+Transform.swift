import HitJSON
import HitRouting

extension SceneDecoding {
    /// A transform in parts form or matrix form (SPEC §2.3), never both.
    package mutating func transform() throws -> Transform? {
        guard try d.beginObject() else { return nil }
        var parts = TransformParts()
        var matrix: Affine?
        var seen = d.borrowKeys()
        defer { d.returnKeys(seen) }
        let issuesBefore = d.issues.count
        while let key = try d.nextMember(&seen) {
            switch key {
            case "translate": parts.translate = try d.point()
            case "rotate": parts.rotate = try d.number()
            case "origin": parts.origin = try d.point()
            case "scale":
                if try d.reader.peek() == .number {
                    parts.scale = try d.number().map { .uniform($0) }
                } else if try d.reader.peek() == .array {
                    parts.scale = try d.point().map { .xy($0.x, $0.y) }
                } else {
                    try d.mismatch("a number or an array [sx, sy]")
                }
            case "matrix": matrix = try matrixValue()
            default: try d.unknown(key, in: "a transform (translate, rotate, scale, origin, or matrix)")
            }
        }
        if seen.contains("matrix") && seen.count > 1 {
            try d.issue("the matrix form cannot be mixed with translate, rotate, scale or origin", [.key("matrix")])
        }
        guard d.issues.count == issuesBefore else { return nil }
        if let matrix { return .matrix(matrix) }
        return .parts(parts)
    }

    /// `[a, b, c, d, e, f]`: six finite numbers.
    private mutating func matrixValue() throws -> Affine? {
        guard try d.reader.peek() == .array else {
            try d.mismatch("an array of six numbers [a, b, c, d, e, f]")
            return nil
        }
        try d.reader.beginArray()
        var m: [Double] = []
        var valid = true
        while try d.reader.nextElement() {
            if m.count < 6, try d.reader.peek() == .number {
                let v = try d.reader.readNumber()
                valid = valid && v.isFinite
                m.append(v)
            } else {
                try d.reader.skipValue()
                valid = false
            }
        }
        guard valid && m.count == 6 else {
            try d.issue("must be an array of six finite numbers [a, b, c, d, e, f]")
            return nil
        }
        return Affine(a: m[0], b: m[1], c: m[2], d: m[3], e: m[4], f: m[5])
    }

    /// `hitSlop`: a number ≥ 0 or `{top, right, bottom, left}`.
    package mutating func hitSlop() throws -> HitSlop? {
        if try d.reader.peek() == .number { return try d.nonNegative().map { .uniform($0) } }
        guard try d.reader.peek() == .object else {
            try d.mismatch("a number >= 0 or an object {top, right, bottom, left}")
            return nil
        }
        guard try d.beginObject() else { return nil }
        var sides: [String: Double] = [:]
        var seen = d.borrowKeys()
        defer { d.returnKeys(seen) }
        while let key = try d.nextMember(&seen) {
            switch key {
            case "top", "right", "bottom", "left": sides[key] = try d.nonNegative()
            default: try d.unknown(key, in: "hitSlop (top, right, bottom, left)")
            }
        }
        return .insets(top: sides["top"], right: sides["right"], bottom: sides["bottom"], left: sides["left"])
    }
}
