/// Point and box queries against straight-edged outlines, in local
/// coordinates. Shared by polygons and by flattened curves.
///
/// Crossings follow one rule everywhere: a ray cast from the point towards
/// +x; an edge counts when it spans the point's y half-open (`min ≤ y < max`)
/// and crosses strictly right of the point. Edges running down the screen
/// (y increasing) count +1, so contours drawn clockwise on screen wind +1 and
/// an axis-aligned rectangle contains exactly `x ≤ px < x+w, y ≤ py < y+h`.
enum Polyline {
    /// The winding contribution of the edge `a → b` at `p`: +1, −1 or 0.
    ///
    /// An edge across the ray's line with both ends right of `p` crosses
    /// right of it, and one with no end right of `p` cannot: both are
    /// decided from the ends, as `PolylineChunks` decides whole runs (so
    /// the two always agree), and exactly where the cross product's terms
    /// would overflow. Only the rest need the cross product.
    static func crossing(_ a: Point, _ b: Point, _ p: Point) -> Int {
        let down = a.y <= p.y && b.y > p.y
        let up = a.y > p.y && b.y <= p.y
        guard down || up, p.x < max(a.x, b.x) else { return 0 }
        if p.x < min(a.x, b.x) { return down ? 1 : -1 }
        let cross = cross(a.x, a.y, b.x, b.y, p.x, p.y)
        return down ? (cross > 0 ? 1 : 0) : (cross < 0 ? -1 : 0)
    }

    /// The cross product `(b − a) × (p − a)`, whose sign says which side of
    /// the line `a → b` the point `p` is on. Where both terms overflow
    /// alike (their difference NaN: an edge and a point some 1e154 apart)
    /// it is taken again from the differences scaled by 2⁻⁵¹², exactly, so
    /// the sign stays right while the differences are finite, as they are
    /// for a point within the span of an edge of a region of finite size.
    @inline(__always)
    static func cross(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ px: Double, _ py: Double) -> Double {
        let c = (bx - ax) * (py - ay) - (px - ax) * (by - ay)
        return c.isNaN ? scaledCross(ax, ay, bx, by, px, py) : c
    }

    @inline(never)
    static func scaledCross(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ px: Double, _ py: Double) -> Double {
        let s = 0x1p-512
        return ((bx - ax) * s) * ((py - ay) * s) - ((px - ax) * s) * ((by - ay) * s)
    }

    /// The winding number of the closed polygon through `points` around `p`.
    /// - Complexity: O(n).
    static func winding(_ points: [Point], _ p: Point) -> Int {
        points.withUnsafeBufferPointer { winding($0, p) }
    }

    /// The winding number of the closed polygon through `pts` around `p`.
    /// - Complexity: O(n).
    static func winding(_ pts: UnsafeBufferPointer<Point>, _ p: Point) -> Int {
        guard let base = pts.baseAddress, pts.count > 0 else { return 0 }
        // `crossing(a, b, p)` summed over the edges, with each vertex's
        // side of the ray computed once and no checks in the loop.
        let n = pts.count
        let px = p.x
        let py = p.y
        var ax = base[n &- 1].x
        var ay = base[n &- 1].y
        var aBelow = ay <= py
        var w = 0
        var i = 0
        while i < n {
            let bx = base[i].x
            let by = base[i].y
            let bBelow = by <= py
            if aBelow != bBelow && px < max(ax, bx) {  // as `crossing`: decided from the ends where they are on one side
                if px < min(ax, bx) {
                    w &+= aBelow ? 1 : -1
                } else {
                    let cross = cross(ax, ay, bx, by, px, py)
                    if aBelow { if cross > 0 { w &+= 1 } } else if cross < 0 { w &-= 1 }
                }
            }
            ax = bx
            ay = by
            aBelow = bBelow
            i &+= 1
        }
        return w
    }

    /// Visits every edge; the closing edge only when `closed`.
    static func forEachEdge(_ points: [Point], closed: Bool, _ body: (Point, Point) -> Bool) {
        guard points.count >= 2 else { return }
        for k in 1..<points.count where !body(points[k - 1], points[k]) { return }
        if closed && points.count > 2 { _ = body(points[points.count - 1], points[0]) }
    }

    /// Distance from `p` to the outline (edges only; 0 on it).
    /// - Complexity: O(n).
    static func distance(_ points: [Point], closed: Bool, to p: Point) -> Double {
        if points.count == 1 { return pointDistance(points[0], p) }
        var best = Double.infinity
        var far = Double.infinity  // edges whose squared lengths overflow, measured scaled
        forEachEdge(points, closed: closed) { a, b in
            let d2 = segmentDistanceSquared(a, b, p)
            if d2.isFinite { best = min(best, d2) } else { far = min(far, scaledSegmentDistance(a, b, p)) }
            return best > 0
        }
        return min(best.squareRoot(), far)
    }

    /// Distance between two points, also where its square overflows.
    static func pointDistance(_ a: Point, _ b: Point) -> Double {
        let d = (a - b).length
        return d.isFinite ? d : scaledSegmentDistance(a, a, b)
    }

    /// Whether any edge of the outline touches the closed box.
    static func intersects(_ points: [Point], closed: Bool, _ box: Box) -> Bool {
        var hit = false
        forEachEdge(points, closed: closed) { a, b in
            hit = segmentIntersects(a, b, box)
            return !hit
        }
        return hit
    }

    /// Distance from the closed box to the outline (0 when they touch).
    static func distance(_ points: [Point], closed: Bool, to box: Box) -> Double {
        if points.count == 1 { return box.distance(to: points[0]) }
        var best = Double.infinity
        forEachEdge(points, closed: closed) { a, b in
            best = min(best, segmentDistance(a, b, box))
            return best > 0
        }
        return best
    }

    /// Squared distance from `p` to the segment `a b`; +infinity when a
    /// squared length on the way overflows (then see `scaledSegmentDistance`).
    static func segmentDistanceSquared(_ a: Point, _ b: Point, _ p: Point) -> Double {
        let ab = b - a
        let ap = p - a
        let len2 = ab.lengthSquared
        let dot = ap.dot(ab)
        guard len2.isFinite, dot.isFinite else { return .infinity }
        let t = len2 > 0 ? min(1, max(0, dot / len2)) : 0
        let d2 = (a + ab * t - p).lengthSquared
        return d2.isFinite ? d2 : .infinity
    }

    /// Distance from `p` to the segment `a b` computed on the three points
    /// divided by their largest coordinate, for coordinates (beyond about
    /// 1e154) whose squares overflow: finite whenever the true distance is.
    static func scaledSegmentDistance(_ a: Point, _ b: Point, _ p: Point) -> Double {
        let s = max(abs(a.x), abs(a.y), abs(b.x), abs(b.y), abs(p.x), abs(p.y))
        guard s.isFinite, s > 0 else { return .infinity }
        let k = 1 / s
        let (a, b, p) = (a * k, b * k, p * k)  // coordinates within ±1: no overflow
        let ab = b - a
        let ap = p - a
        let len2 = ab.lengthSquared
        let t = len2 > 0 ? min(1, max(0, ap.dot(ab) / len2)) : 0
        guard t > 0 && t < 1 else { return (t == 0 ? ap : p - b).length * s }
        // Beside the segment: |ab × ap| / |ab|, which keeps a distance far
        // below the coordinates' rounding (a stroke of 10 along a line 1e200 long).
        return abs(ab.x * ap.y - ab.y * ap.x) / len2.squareRoot() * s
    }

    /// Whether the segment `a b` touches the closed box (Liang–Barsky clipping).
    static func segmentIntersects(_ a: Point, _ b: Point, _ box: Box) -> Bool {
        var t0 = 0.0
        var t1 = 1.0
        let d = b - a
        for (p, q) in [(-d.x, a.x - box.minX), (d.x, box.maxX - a.x), (-d.y, a.y - box.minY), (d.y, box.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return false }
            }
        }
        return true
    }

    /// Distance between the segment `a b` and the closed box. When they do
    /// not touch, the closest pair involves an endpoint or a box corner.
    static func segmentDistance(_ a: Point, _ b: Point, _ box: Box) -> Double {
        if segmentIntersects(a, b, box) { return 0 }
        var best = min(box.distance(to: a), box.distance(to: b))
        for c in box.corners {
            let d2 = segmentDistanceSquared(a, b, c)
            best = min(best, d2.isFinite ? d2.squareRoot() : scaledSegmentDistance(a, b, c))
        }
        return best
    }

    /// The closed polygon through `points` with its zero-area parts taken
    /// out: a vertex where the outline runs on or back along the line it
    /// came on (exactly collinear with its neighbours, as in `M 400 100
    /// L 600 100` closed, or a spike down a line and back up it) is
    /// dropped, again and again, so that what is left bounds the same fill
    /// with edges that each have fill on one side. Empty when no area is
    /// left (a two-point polyline, an out-and-back path).
    ///
    /// Each drop replaces edges `a → b → c` on one line by `a → c`, which
    /// winds the same around every point off the line; overlaps between
    /// edges that are not neighbours stay (they touch fill anyway, or
    /// cancel only in shapes that cross themselves so).
    /// - Complexity: O(n).
    static func withoutZeroAreaParts(_ points: [Point]) -> [Point] {
        func collinear(_ a: Point, _ b: Point, _ c: Point) -> Bool {
            (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x) == 0
        }
        var out: [Point] = []
        out.reserveCapacity(points.count)
        for p in points {
            if out.last == p { continue }
            while out.count >= 2 && collinear(out[out.count - 2], out[out.count - 1], p) { out.removeLast() }
            if out.last == p { continue }
            out.append(p)
        }
        // The same at the ring's seam, between its last and first vertices.
        var start = 0
        while out.count - start >= 3 {
            let n = out.count
            if out[n - 1] == out[start] || collinear(out[n - 2], out[n - 1], out[start]) {
                out.removeLast()
            } else if collinear(out[n - 1], out[start], out[start + 1]) {
                start += 1
            } else {
                break
            }
        }
        guard out.count - start >= 3 else { return [] }
        return out.count - start == points.count ? points : Array(out[start...])
    }
}
