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
    static func crossing(_ a: Point, _ b: Point, _ p: Point) -> Int {
        if a.y <= p.y {
            if b.y > p.y {  // runs down across the ray's line
                let cross = (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
                if cross > 0 { return 1 }
            }
        } else if b.y <= p.y {  // runs up across it
            let cross = (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
            if cross < 0 { return -1 }
        }
        return 0
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
        let n = pts.count, px = p.x, py = p.y
        var ax = base[n &- 1].x, ay = base[n &- 1].y
        var aBelow = ay <= py
        var w = 0
        var i = 0
        while i < n {
            let bx = base[i].x, by = base[i].y
            let bBelow = by <= py
            if aBelow != bBelow {
                let cross = (bx - ax) * (py - ay) - (px - ax) * (by - ay)
                if aBelow { if cross > 0 { w &+= 1 } } else if cross < 0 { w &-= 1 }
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
        if points.count == 1 { return (points[0] - p).length }
        var best = Double.infinity
        forEachEdge(points, closed: closed) { a, b in
            best = min(best, segmentDistanceSquared(a, b, p))
            return best > 0
        }
        return best.squareRoot()
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

    /// Squared distance from `p` to the segment `a b`.
    static func segmentDistanceSquared(_ a: Point, _ b: Point, _ p: Point) -> Double {
        let ab = b - a, ap = p - a
        let len2 = ab.lengthSquared
        let t = len2 > 0 ? min(1, max(0, ap.dot(ab) / len2)) : 0
        return (a + ab * t - p).lengthSquared
    }

    /// Whether the segment `a b` touches the closed box (Liang–Barsky clipping).
    static func segmentIntersects(_ a: Point, _ b: Point, _ box: Box) -> Bool {
        var t0 = 0.0, t1 = 1.0
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
        for c in box.corners { best = min(best, segmentDistanceSquared(a, b, c).squareRoot()) }
        return best
    }
}
