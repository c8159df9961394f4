// The scene half of the API fuzzer's generator: scene documents (SPEC §2)
// written as JSON text from a decision stream, biased to the numbers and
// shapes that break geometry: ±1e308, 5e-324, -0, 2^53+1, huge and tiny
// scales, near-singular and shearing matrices, deep nesting, huge strokes,
// slops and radii, self-touching and out-and-back outlines, and sibling
// lists long enough for the sibling index (8) and the grid (64).

/// Numbers as JSON text, chosen from the stream.
enum FuzzNumber {
    /// Values at the edges of doubles and of the geometry's thresholds.
    static let extremes: [Double] = [
        0, -0.0, 1, -1, 0.5, 2, 10, 100, 240, 1e308, -1e308, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 2.2250738585072014e-308, 1e300, -1e300,
        1e200, 1e-200, 1e-300, 1e154, 1e155, -1e154, 1e16, 1e15, 4_294_967_296, 2_147_483_648,
        9.2233720368547758e18, -9.2233720368547758e18, 1e-12, 1e-13, 0.999999999999, 1e-9,
        1e9, 3.4e38, 1e100, 1e-100, 180, 360, 90, 0.01, 0.009999,
    ]
    /// Literals whose text matters: 2^53+1 does not round-trip, the last
    /// two overflow to infinity (a 422 by SPEC §1).
    static let literals = [
        "9007199254740993", "-9007199254740993", "-0", "1E308", "4.9e-324", "1e-400",
        "1.7976931348623157e308", "123456789012345678901234567890", "0.0000001e-317",
        "1e999", "-1.7976931348623159e308",
    ]

    static func text(_ v: Double) -> String {
        if v == 0 { return v.sign == .minus ? "-0" : "0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return "\(v)"
    }

    /// A number, mostly ordinary, often extreme, seldom non-finite.
    static func next(_ d: inout Decisions) -> String {
        switch d.byte() {
        case 0..<90: return String(Int(d.byte()) * 2 - 40)
        case 90..<170: return text(d.pick(extremes) * (d.chance(20) ? -1 : 1))
        case 170..<210: return text(Double(Int(d.byte()) << 8 | Int(d.byte())) / 64 - 256)
        case 210..<236:
            let v = Double(bitPattern: d.u64())
            return v.isFinite ? text(v) : "1e308"
        case 236..<250: return d.pick(literals)
        default: return text(d.pick(extremes) * Double(d.byte()) / 16)
        }
    }

    /// A number ≥ 0 (negatives are a fine 422 too, seldom).
    static func nonNegative(_ d: inout Decisions) -> String {
        let t = next(&d)
        return t.hasPrefix("-") && d.chance(90) ? String(t.dropFirst()) : t
    }
}

/// Writes scene documents and remembers their layer ids.
struct SceneWriter {
    var out = ""
    /// Every layer id written, in order.
    var ids: [String] = []
    /// Layers still allowed in this scene.
    var budget: Int

    init(budget: Int) { self.budget = budget }

    mutating func number(_ d: inout Decisions) { out += FuzzNumber.next(&d) }
    mutating func field(_ name: String) { out += "\"\(name)\":" }

    /// `{"id"?, "width"?, "height"?, "layers": [...]}`.
    mutating func scene(_ d: inout Decisions, id: String?) {
        out += "{"
        if let id { out += "\"id\":\"\(id)\"," }
        if d.chance(15) {
            field("width")
            number(&d)
            out += ","
            field("height")
            number(&d)
            out += ","
        }
        field("layers")
        switch d.below(16) {
        case 0: siblings(&d)
        case 1: chain(&d)
        default: layers(&d, depth: 1, count: d.below(5))
        }
        out += "}"
    }

    /// `count` layers (each maybe with children) as a JSON array.
    mutating func layers(_ d: inout Decisions, depth: Int, count: Int) {
        out += "["
        for i in 0..<count where budget > 0 {
            if i > 0 { out += "," }
            layer(&d, depth: depth)
        }
        out += "]"
    }

    /// Many siblings of similar size: the sibling index and grid are built.
    /// The last one is sometimes any layer at all (shape, transform, flags),
    /// so that covers and indexed visits meet every geometry.
    mutating func siblings(_ d: inout Decisions) {
        let count = d.pick([9, 63, 64, 65, 100, 300])
        let size = d.chance(20) ? FuzzNumber.next(&d) : "10"
        let far = d.chance(30) ? FuzzNumber.next(&d) : nil
        let anyLast = d.chance(50)
        out += "["
        for i in 0..<count {
            if i > 0 { out += "," }
            if i == count - 1 && anyLast {
                budget = 8
                layer(&d, depth: 1)
                break
            }
            let id = "s\(i)"
            ids.append(id)
            let x = i == count - 1 && far != nil ? far! : String(i % 20 * 12)
            out += "{\"id\":\"\(id)\",\"shape\":{\"type\":\"rect\",\"x\":\(x),\"y\":\(i / 20 * 12),\"width\":\(size),\"height\":\(size)}"
            if i % 7 == 3 && d.chance(50) {
                out += ","
                commonLayerField(&d)
            }
            out += "}"
        }
        out += "]"
        budget = 0
    }

    /// A chain of nested layers around the depth limit (64).
    mutating func chain(_ d: inout Decisions) {
        let depth = d.pick([10, 63, 64, 65])
        for i in 0..<depth {
            let id = "c\(i)"
            ids.append(id)
            out += "[{\"id\":\"\(id)\","
            if d.chance(40) {
                field("transform")
                transform(&d)
                out += ","
            }
            if i == depth - 1 || d.chance(10) {
                field("shape")
                shape(&d, depth: 0)
                out += ","
            }
            field("children")
        }
        out += "[]"
        for _ in 0..<depth { out += "}]" }
        budget = 0
    }

    mutating func layer(_ d: inout Decisions, depth: Int) {
        budget -= 1
        let id: String
        if !ids.isEmpty && d.chance(3) {
            id = d.pick(ids)
        }  // a duplicate: 422
        else {
            id = "l\(ids.count)"
            ids.append(id)
        }
        out += "{\"id\":\"\(id)\""
        if d.chance(85) {
            out += ","
            field("shape")
            shape(&d, depth: 0)
        }
        if d.chance(12) {
            out += ","
            field("hitShape")
            shape(&d, depth: 0)
        }
        for _ in 0..<d.below(4) {
            out += ","
            commonLayerField(&d)
        }
        if depth < 64, d.chance(30) {
            out += ","
            field("children")
            layers(&d, depth: depth + 1, count: d.below(4))
        }
        out += "}"
    }

    /// One of the layer's optional fields (never `id`, `shape`, `children`).
    mutating func commonLayerField(_ d: inout Decisions) {
        switch d.below(13) {
        case 0, 1:
            field("transform")
            transform(&d)
        case 2, 3:
            field("hitSlop")
            slop(&d)
        case 4:
            field("zIndex")
            number(&d)
        case 5:
            field("pointerEvents")
            out += d.pick(["\"auto\"", "\"none\"", "\"children-only\"", "\"self-only\"", "\"x\""])
        case 6:
            field("hidden")
            out += d.chance(50) ? "true" : "false"
        case 7:
            field("opacity")
            number(&d)
        case 8:
            field("clipChildren")
            out += d.chance(80) ? "true" : "false"
        case 9, 10:
            field("draggable")
            out += d.chance(90) ? "true" : "false"
        case 11:
            field("passThrough")
            out += d.chance(80) ? "true" : "false"
        default:
            field("action")
            out += d.pick(["\"a.press\"", "\"\"", "\"b\""])
        }
    }

    mutating func slop(_ d: inout Decisions) {
        if d.chance(50) {
            out += FuzzNumber.nonNegative(&d)
            return
        }
        out += "{"
        var first = true
        for side in ["top", "right", "bottom", "left"] where d.chance(60) {
            if !first { out += "," }
            first = false
            field(side)
            out += FuzzNumber.nonNegative(&d)
        }
        out += "}"
    }

    mutating func transform(_ d: inout Decisions) {
        switch d.below(8) {
        case 0, 1:
            // Parts.
            out += "{"
            var parts: [String] = []
            if d.chance(60) { parts.append("\"translate\":[\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d))]") }
            if d.chance(40) { parts.append("\"rotate\":\(FuzzNumber.next(&d))") }
            if d.chance(60) {
                parts.append(
                    d.chance(50)
                        ? "\"scale\":\(FuzzNumber.next(&d))"
                        : "\"scale\":[\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d))]")
            }
            if d.chance(30) { parts.append("\"origin\":[\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d))]") }
            if d.chance(3) { parts.append("\"matrix\":[1,0,0,1,0,0]") }  // both forms: 422
            out += parts.joined(separator: ",") + "}"
        case 2: out += "{\"scale\":\(d.pick(["1e200", "1e-200", "1e154", "1e-160", "1e100", "-1e155", "5e-324"]))}"
        case 3 where d.chance(50):
            // A shear a few orders of magnitude from singular (|det| 1e-10 to 1e-13 with
            // entries near 1): no rounding bound, so indexes must look for it everywhere.
            let dd = d.pick(["0.30000000001", "0.3000000001", "0.300000000005", "0.29999999999", "0.3000000000003"])
            let e = d.chance(50) ? d.pick(["0", "7", "-1e3"]) : FuzzNumber.next(&d)
            let f = d.chance(50) ? d.pick(["0", "3"]) : FuzzNumber.next(&d)
            out += "{\"matrix\":[1.5,0.5,0.9,\(dd),\(e),\(f)]}"
        case 3:
            // Near-singular: determinant around the 1e-12 threshold.
            let e = d.pick(["1e-12", "1e-13", "1.0000001e-12", "9.999999e-13", "1e-300", "0", "5e-324"])
            out += "{\"matrix\":[1,0,0,\(e),\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d))]}"
        case 4:
            // Shearing, or with entries that overflow when multiplied.
            let k = d.pick(["1", "1e154", "1e155", "1e200", "-1e308", "1e-154"])
            out += "{\"matrix\":[\(k),\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d)),\(k),\(FuzzNumber.next(&d)),\(FuzzNumber.next(&d))]}"
        default:
            out += "{\"matrix\":[" + (0..<6).map { _ in FuzzNumber.next(&d) }.joined(separator: ",") + "]}"
        }
    }

    mutating func shape(_ d: inout Decisions, depth: Int) {
        out += "{"
        let kinds = depth < 3 ? 9 : 8
        switch d.below(kinds) {
        case 0, 1:
            out += "\"type\":\"rect\""
            for f in ["x", "y", "width", "height"] {
                out += ",\"\(f)\":"
                out += f.count > 1 ? FuzzNumber.nonNegative(&d) : FuzzNumber.next(&d)
            }
            if d.chance(30) { out += ",\"cornerRadius\":" + FuzzNumber.nonNegative(&d) }
        case 2:
            out +=
                "\"type\":\"ellipse\",\"cx\":\(FuzzNumber.next(&d)),\"cy\":\(FuzzNumber.next(&d)),\"rx\":\(FuzzNumber.nonNegative(&d)),\"ry\":\(FuzzNumber.nonNegative(&d))"
        case 3:
            out += "\"type\":\"circle\",\"cx\":\(FuzzNumber.next(&d)),\"cy\":\(FuzzNumber.next(&d)),\"r\":\(FuzzNumber.nonNegative(&d))"
        case 4:
            out += "\"type\":\"polygon\",\"points\":" + points(&d, count: d.below(10))
        case 5:
            out += "\"type\":\"polyline\",\"points\":" + points(&d, count: d.below(6))
        case 6:
            out += "\"type\":\"path\",\"d\":\"" + pathData(&d) + "\""
        case 7:
            mask(&d)
        default:
            out += "\"type\":\"compound\",\"shapes\":["
            for i in 0..<(1 + d.below(3)) {
                if i > 0 { out += "," }
                shape(&d, depth: depth + 1)
            }
            out += "]"
        }
        if d.chance(25) { out += ",\"stroke\":" + FuzzNumber.nonNegative(&d) }
        if d.chance(15) { out += ",\"fill\":" + (d.chance(50) ? "false" : "true") }
        if d.chance(15) { out += ",\"fillRule\":" + (d.chance(50) ? "\"evenodd\"" : "\"nonzero\"") }
        out += "}"
    }

    /// A `mask` (SPEC §2.2): a small alpha plane (sometimes of the wrong
    /// size), a tiny PNG, or a broken one, with a fuzzed threshold.
    mutating func mask(_ d: inout Decisions) {
        out += "\"type\":\"mask\""
        for f in ["x", "y", "width", "height"] {
            out += ",\"\(f)\":"
            out += f.count > 1 ? FuzzNumber.nonNegative(&d) : FuzzNumber.next(&d)
        }
        if d.chance(75) {
            let columns = 1 + d.below(6)
            let rows = 1 + d.below(6)
            let count = d.chance(90) ? columns * rows : d.below(40)
            let alpha = (0..<count).map { _ in d.chance(50) ? UInt8(255) : d.byte() }
            out += ",\"columns\":\(columns),\"rows\":\(rows),\"alpha\":\"\(FuzzBase64.encode(alpha))\""
        } else {
            // A 3 × 3 RGBA PNG (opaque, clear and half-transparent columns), a bare signature, junk.
            out +=
                ",\"png\":\""
                + d.pick([
                    "iVBORw0KGgoAAAANSUhEUgAAAAMAAAADCAYAAABWKLW/AAAAFklEQVR4nGP4z8AARAwMnJycDQw4OQCmqgfMptQD+QAAAABJRU5ErkJggg==",
                    "iVBORw0KGgo=", "AAAA", "", "====", "iVBORw0KGgoAAAANSUhEUgAAAAMAAAAD",
                ]) + "\""
        }
        if d.chance(50) { out += ",\"threshold\":" + FuzzNumber.next(&d) }
    }

    /// `count` points, sometimes repeating or retracing earlier ones
    /// (self-touching, out-and-back, zero-area outlines).
    mutating func points(_ d: inout Decisions, count: Int) -> String {
        var ps: [(String, String)] = []
        for _ in 0..<count {
            if !ps.isEmpty, d.chance(25) {
                ps.append(d.pick(ps))
                continue
            }
            ps.append((FuzzNumber.next(&d), FuzzNumber.next(&d)))
        }
        return "[" + ps.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]"
    }

    /// SVG path data: commands of every kind with fuzzed numbers, the
    /// out-and-back `M 400 100 L 600 100`, or something broken.
    mutating func pathData(_ d: inout Decisions) -> String {
        if d.chance(8) {
            return d.pick([
                "M 400 100 L 600 100", "M0 0L10 0L0 0", "M0,0 L10,10 L10,0 L10,10 Z", "", "M", "M 1e308 0 L -1e308 0 Z",
                "M0 0 A 1e-300 1e-300 0 1 1 1e300 0", "m.5.5-1-2z",
            ])
        }
        var s = "M" + FuzzNumber.next(&d) + " " + FuzzNumber.next(&d)
        for _ in 0..<d.below(7) {
            let c = d.pick(Array("MLHVCSQTAZmlhvcsqtaz"))
            let arity: Int
            switch c.lowercased() {
            case "h", "v": arity = 1
            case "m", "l", "t": arity = 2
            case "s", "q": arity = 4
            case "c": arity = 6
            case "a": arity = 7
            default: arity = 0
            }
            s.append(c)
            for k in 0..<arity {
                if c.lowercased() == "a", k == 3 || k == 4 {
                    s += d.chance(50) ? " 1" : " 0"
                    continue
                }
                s += " " + FuzzNumber.next(&d)
            }
        }
        return s
    }
}

/// Standard base64 with padding (RFC 4648), for the masks' `alpha`.
enum FuzzBase64 {
    static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = 0
            for k in 0..<3 { v = v << 8 | (k < n ? Int(bytes[i + k]) : 0) }
            for k in 0..<4 { out.append(k <= n ? table[(v >> (18 - 6 * k)) & 63] : "=") }
            i += 3
        }
        return out
    }
}
