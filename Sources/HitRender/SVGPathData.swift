import HitRouting

/// SVG path data for each shape type (SPEC §2.2), in the shape's local
/// coordinates, tracing the same outlines the hit regions are built from:
/// `rect`, `ellipse` and `circle` clockwise on screen (as the core traces
/// them, so nested primitives in a `nonzero` compound fill in), polygons and
/// paths in their given order, polylines and unclosed subpaths left open
/// for stroking.
///
/// Degenerate geometry writes nothing: a rect of zero width or height, an
/// ellipse or circle with a zero radius, a polygon or polyline whose points
/// all coincide, and a path subpath made of a single point (which browsers
/// would otherwise stroke as a dot with round caps).
enum SVGPathData {
    /// Appends the path data of `geometry`; returns whether anything was written.
    /// - Complexity: O(vertices or path elements).
    @discardableResult
    static func append(_ geometry: ShapeGeometry, to w: inout SVGWriter) -> Bool {
        switch geometry {
        case .rect(let x, let y, let width, let height, let cornerRadius):
            guard width > 0, height > 0 else { return false }
            let r = min(cornerRadius ?? 0, width / 2, height / 2)
            if r > 0 {
                separate(&w)
                w.raw("M")
                w.point(x + r, y)
                w.raw("H")
                w.number(x + width - r)
                arc(r, r, to: x + width, y + r, &w)
                w.raw("V")
                w.number(y + height - r)
                arc(r, r, to: x + width - r, y + height, &w)
                w.raw("H")
                w.number(x + r)
                arc(r, r, to: x, y + height - r, &w)
                w.raw("V")
                w.number(y + r)
                arc(r, r, to: x + r, y, &w)
                w.raw("Z")
            } else {
                separate(&w)
                w.raw("M")
                w.point(x, y)
                w.raw("H")
                w.number(x + width)
                w.raw("V")
                w.number(y + height)
                w.raw("H")
                w.number(x)
                w.raw("Z")
            }
            return true
        case .ellipse(let cx, let cy, let rx, let ry):
            return ellipse(cx, cy, rx, ry, &w)
        case .circle(let cx, let cy, let r):
            return ellipse(cx, cy, r, r, &w)
        case .polygon(let points), .polyline(let points):
            guard let first = points.first, points.contains(where: { $0 != first }) else { return false }
            separate(&w)
            w.raw("M")
            w.point(first.x, first.y)
            w.raw("L")
            for (k, p) in points.dropFirst().enumerated() {
                if k > 0 { w.raw(" ") }
                w.point(p.x, p.y)
            }
            if case .polygon = geometry { w.raw("Z") }
            return true
        case .path(_, let elements):
            return path(elements, &w)
        case .compound(let members):
            var any = false
            for m in members where append(m.geometry, to: &w) { any = true }
            return any
        case .mask:
            return false  // drawn as an image of its pixels (MaskDrawing), not as path data
        }
    }

    /// A space between subpaths written one after another.
    private static func separate(_ w: inout SVGWriter) {
        if w.pathStarted { w.raw(" ") }
        w.pathStarted = true
    }

    private static func arc(_ rx: Double, _ ry: Double, to x: Double, _ y: Double, _ w: inout SVGWriter) {
        w.raw("A")
        w.number(rx)
        w.raw(" ")
        w.number(ry)
        w.raw(" 0 0 1 ")
        w.point(x, y)
    }

    private static func ellipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double, _ w: inout SVGWriter) -> Bool {
        guard rx > 0, ry > 0 else { return false }
        separate(&w)
        w.raw("M")
        w.point(cx + rx, cy)
        arc(rx, ry, to: cx - rx, cy, &w)
        arc(rx, ry, to: cx + rx, cy, &w)
        w.raw("Z")
        return true
    }

    /// Parsed path elements (already absolute), one subpath at a time,
    /// leaving out subpaths that never leave their start point.
    private static func path(_ elements: [PathElement], _ w: inout SVGWriter) -> Bool {
        var any = false
        var i = 0
        var start = Point.zero
        while i < elements.count {
            // One subpath: an optional move, then drawing elements up to the next move (a Z ends it too).
            var j = i
            if case .move(let p) = elements[j] {
                start = p
                j += 1
            }
            var degenerate = true
            var end = j
            while end < elements.count {
                let e = elements[end]
                if case .move = e { break }
                end += 1
                if case .close = e { break }
                if !stays(e, at: start) { degenerate = false }
            }
            if !degenerate {
                separate(&w)
                w.raw("M")
                w.point(start.x, start.y)
                for e in elements[j..<end] { element(e, &w) }
                any = true
            }
            i = max(end, i + 1)
        }
        return any
    }

    /// Whether an element leaves the subpath at `p` (every point it names is `p`).
    private static func stays(_ e: PathElement, at p: Point) -> Bool {
        switch e {
        case .move(let q), .line(let q): return q == p
        case .quad(let c, let q): return c == p && q == p
        case .cubic(let c1, let c2, let q): return c1 == p && c2 == p && q == p
        case .arc(_, _, _, _, let q): return q == p
        case .close: return true
        }
    }

    private static func element(_ e: PathElement, _ w: inout SVGWriter) {
        switch e {
        case .move(let p):
            w.raw("M")
            w.point(p.x, p.y)
        case .line(let p):
            w.raw("L")
            w.point(p.x, p.y)
        case .quad(let c, let p):
            w.raw("Q")
            w.point(c.x, c.y)
            w.raw(" ")
            w.point(p.x, p.y)
        case .cubic(let c1, let c2, let p):
            w.raw("C")
            w.point(c1.x, c1.y)
            w.raw(" ")
            w.point(c2.x, c2.y)
            w.raw(" ")
            w.point(p.x, p.y)
        case .arc(let radii, let rotation, let large, let sweep, let p):
            w.raw("A")
            w.number(radii.x)
            w.raw(" ")
            w.number(radii.y)
            w.raw(" ")
            w.number(rotation)
            w.raw(large ? " 1" : " 0")
            w.raw(sweep ? " 1 " : " 0 ")
            w.point(p.x, p.y)
        case .close: w.raw("Z")
        }
    }
}
