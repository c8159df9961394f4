extension RegionBuilder {
    /// The field of `shape` (or of `slop`) that first makes the region's
    /// bounds non-finite (SPEC §1), found by recomputing them a step at a
    /// time: the geometry (`x + width`, `cx ± rx`, the running box of
    /// `points`, the contours of `d`, each member of a compound), then the
    /// stroke, then the slop. Nil when every step is finite.
    ///
    /// Called only after a region's bounds came out non-finite, so its cost
    /// (one more pass over the shape) is paid only by scenes that are refused.
    /// - Parameter shapeKey: `"shape"` or `"hitShape"`, the layer's key for `shape`.
    static func nonFiniteField(of shape: Shape, slop: HitSlop?, shapeKey: String)
        -> (field: [NumericProblem.Token], message: String)?
    {
        let base: [NumericProblem.Token] = [.key(shapeKey)]
        let geometry: Box
        switch geometryBounds(shape.geometry, at: base) {
        case .failure(let f): return (f.field, f.message)
        case .success(let b): geometry = b
        }
        let stroke = shape.stroke ?? 0
        let stroked = geometry.outset(by: stroke / 2)
        if !stroked.hasFiniteSize { return (base + [.key("stroke")], "grows the bounds beyond the finite range") }
        let edges = slop?.edges ?? .zero
        let grown = stroked.outset(top: edges.top, right: edges.right, bottom: edges.bottom, left: edges.left)
        if !grown.hasFiniteSize {
            var field: [NumericProblem.Token] = [.key("hitSlop")]
            if case .insets(let t, let r, let b, let l)? = slop {
                // The first side, in the SPEC's order, whose growth overflows.
                let sides: [(String, Double?, Box)] = [
                    ("top", t, stroked.outset(top: edges.top, right: 0, bottom: 0, left: 0)),
                    ("right", r, stroked.outset(top: 0, right: edges.right, bottom: 0, left: 0)),
                    ("bottom", b, stroked.outset(top: 0, right: 0, bottom: edges.bottom, left: 0)),
                    ("left", l, stroked.outset(top: 0, right: 0, bottom: 0, left: edges.left)),
                ]
                if let side = sides.first(where: { $0.1 != nil && !$0.2.hasFiniteSize }) { field.append(.key(side.0)) }
            }
            return (field, "grows the bounds beyond the finite range")
        }
        return nil
    }

    struct Failure: Error {
        var field: [NumericProblem.Token]
        var message: String
    }

    /// The bounds of a shape's geometry, or the first field that makes them non-finite.
    private static func geometryBounds(_ geometry: ShapeGeometry, at base: [NumericProblem.Token]) -> Result<Box, Failure> {
        func fail(_ key: String, _ message: String) -> Result<Box, Failure> {
            .failure(Failure(field: base + [.key(key)], message: message))
        }
        let overflow = "makes the bounds overflow the finite range"
        switch geometry {
        case .rect(let x, let y, let w, let h, _):
            if !Box(minX: x, minY: 0, maxX: x + w, maxY: 0).hasFiniteSize { return fail("width", "x + width \(overflow)") }
            if !Box(minX: 0, minY: y, maxX: 0, maxY: y + h).hasFiniteSize { return fail("height", "y + height \(overflow)") }
            return .success(Box(minX: x, minY: y, maxX: x + w, maxY: y + h))
        case .ellipse(let cx, let cy, let rx, let ry):
            if !Box(minX: cx - rx, minY: 0, maxX: cx + rx, maxY: 0).hasFiniteSize { return fail("rx", "cx ± rx \(overflow)") }
            if !Box(minX: 0, minY: cy - ry, maxX: 0, maxY: cy + ry).hasFiniteSize { return fail("ry", "cy ± ry \(overflow)") }
            return .success(Box(minX: cx - rx, minY: cy - ry, maxX: cx + rx, maxY: cy + ry))
        case .circle(let cx, let cy, let r):
            let b = Box(minX: cx - r, minY: cy - r, maxX: cx + r, maxY: cy + r)
            return b.hasFiniteSize ? .success(b) : fail("r", "the centre ± r \(overflow)")
        case .polygon(let points), .polyline(let points):
            var b = Box.empty
            for (k, p) in points.enumerated() {
                b.formUnion(p)
                if !b.hasFiniteSize {
                    return .failure(
                        Failure(
                            field: base + [.key("points"), .index(k)],
                            message: "is so far from the points before it that the bounds' size overflows"))
                }
            }
            return .success(b)
        case .path(_, let elements):
            var b = Box.empty
            for c in PathContours.build(elements, needsOutline: false, tolerance: 1) { b.formUnion(c.bounds) }
            return b.hasFiniteSize ? .success(b) : fail("d", "the path's bounds overflow the finite range")
        case .mask(let m):
            if !Box(minX: m.x, minY: 0, maxX: m.x + m.width, maxY: 0).hasFiniteSize { return fail("width", "x + width \(overflow)") }
            if !Box(minX: 0, minY: m.y, maxX: 0, maxY: m.y + m.height).hasFiniteSize { return fail("height", "y + height \(overflow)") }
            return .success(Box(minX: m.x, minY: m.y, maxX: m.x + m.width, maxY: m.y + m.height))
        case .compound(let members):
            var b = Box.empty
            for (k, member) in members.enumerated() {
                switch geometryBounds(member.geometry, at: base + [.key("shapes"), .index(k)]) {
                case .failure(let f): return .failure(f)
                case .success(let mb):
                    b.formUnion(mb)
                    if !b.hasFiniteSize {
                        return .failure(
                            Failure(
                                field: base + [.key("shapes"), .index(k)],
                                message: "is so far from the members before it that the bounds' size overflows"))
                    }
                }
            }
            return .success(b)
        }
    }
}
