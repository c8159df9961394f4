/// Bounding boxes of runs of `size` consecutive edges of a long outline,
/// in the outline's local coordinates: point and box queries skip the runs
/// whose box cannot matter, so that a flattened outline of 65,536 points
/// (a huge arc or ellipse, `RegionBuilder.maxFlattenedPointsPerContour`)
/// costs a query O(n / size + size · runs near the query) instead of O(n).
/// Without them a batch of a few thousand points against one such layer
/// with hit slop took seconds (the API fuzzer's timeout-ecd54aec).
///
/// The outline is read as a ring: edge `k` runs from `points[k]` to
/// `points[k + 1]`, the last one back to `points[0]`; queries on an open
/// polyline skip that closing edge (its run's box then only covers more).
/// Only outlines of more than `2 · size` points get boxes; shorter ones are
/// queried by the plain loops, as before.
///
/// The skips are exact in real arithmetic: an edge lies in its run's box.
struct PolylineChunks: Sendable {
    /// Edges per run.
    static let size = 32

    /// `boxes[c]` covers edges `c · size ..< min((c + 1) · size, n)`: the
    /// points from `c · size` through the last edge's end.
    let boxes: [Box]

    static let none = PolylineChunks(boxes: [])

    private init(boxes: [Box]) { self.boxes = boxes }

    /// The runs of `points` (none when there are at most `2 · size`).
    /// - Complexity: O(n).
    init(_ points: [Point]) {
        let n = points.count, size = Self.size
        guard n > 2 * size else {
            boxes = []
            return
        }
        var boxes: [Box] = []
        boxes.reserveCapacity((n + size - 1) / size)
        var start = 0
        while start < n {
            let end = min(start + size, n)
            var box = Box(covering: points[start..<end])
            box.formUnion(Box(covering: [points[end == n ? 0 : end]]))
            boxes.append(box)
            start = end
        }
        self.boxes = boxes
    }

    var isEmpty: Bool { boxes.isEmpty }

    /// The edges of run `c` of an outline of `n` points.
    @inline(__always)
    func edges(of c: Int, count n: Int) -> Range<Int> {
        c * Self.size..<min((c + 1) * Self.size, n)
    }

    /// Calls `body` with the edge ranges of the runs whose box lies within
    /// `limit` (Chebyshev, so no nearer than the true distance) of the
    /// closed box `q`, until it returns false.
    @inline(__always)
    func forEachRun(near q: Box, within limit: Double, count n: Int, _ body: (Range<Int>) -> Bool) {
        for (c, b) in boxes.enumerated() {
            let gap = max(b.minX - q.maxX, q.minX - b.maxX, b.minY - q.maxY, q.minY - b.maxY)
            if gap > limit { continue }
            if !body(edges(of: c, count: n)) { return }
        }
    }

    /// The number of runs `forEachRun(near:within:count:_:)` visits (for tests).
    func runsVisited(near q: Box, within limit: Double, count n: Int) -> Int {
        var visited = 0
        forEachRun(near: q, within: limit, count: n) { _ in
            visited += 1
            return true
        }
        return visited
    }
}

extension Polyline {
    /// `winding(points, p)`, skipping runs that cannot cross the ray from
    /// `p` towards +x and counting runs wholly right of `p` from their ends.
    /// - Complexity: O(n / size) plus O(size) per run that straddles `p.x`
    ///   across `p.y`.
    static func winding(_ points: [Point], _ chunks: PolylineChunks, _ p: Point) -> Int {
        if chunks.isEmpty { return winding(points, p) }
        return points.withUnsafeBufferPointer { pts in
            let n = pts.count
            var w = 0
            for (c, b) in chunks.boxes.enumerated() {
                // Every vertex on one side of the ray's line (`y ≤ p.y` or
                // not), or every edge left of p: no crossing counts.
                if b.maxY <= p.y || b.minY > p.y || b.maxX < p.x { continue }
                let run = chunks.edges(of: c, count: n)
                if b.minX > p.x {
                    // Wholly right of p: every crossing of the line counts,
                    // +1 down and −1 up, so the run's sum telescopes to its ends.
                    let first = pts[run.lowerBound], last = pts[run.upperBound == n ? 0 : run.upperBound]
                    w += (last.y <= p.y ? 0 : 1) - (first.y <= p.y ? 0 : 1)
                    continue
                }
                for k in run { w += crossing(pts[k], pts[k + 1 == n ? 0 : k + 1], p) }
            }
            return w
        }
    }

    /// `distance(points, closed:, to: p) <= limit`, visiting only the runs
    /// within `limit` of `p`.
    static func isWithin(_ limit: Double, of points: [Point], closed: Bool, _ chunks: PolylineChunks, _ p: Point) -> Bool {
        if chunks.isEmpty { return distance(points, closed: closed, to: p) <= limit }
        let n = points.count
        var within = false
        chunks.forEachRun(near: Box(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y), within: limit, count: n) { run in
            for k in run where closed || k + 1 < n {
                let a = points[k], b = points[k + 1 == n ? 0 : k + 1]
                let d2 = segmentDistanceSquared(a, b, p)
                // As `distance` measures: squared, or scaled where the square overflows.
                if d2.isFinite ? d2.squareRoot() <= limit : scaledSegmentDistance(a, b, p) <= limit {
                    within = true
                    return false
                }
            }
            return true
        }
        return within
    }

    /// `intersects(points, closed:, box)`, visiting only the runs whose box
    /// meets `box`.
    static func intersects(_ points: [Point], closed: Bool, _ chunks: PolylineChunks, _ box: Box) -> Bool {
        if chunks.isEmpty { return intersects(points, closed: closed, box) }
        let n = points.count
        var hit = false
        chunks.forEachRun(near: box, within: 0, count: n) { run in
            for k in run where closed || k + 1 < n {
                if segmentIntersects(points[k], points[k + 1 == n ? 0 : k + 1], box) {
                    hit = true
                    return false
                }
            }
            return true
        }
        return hit
    }

    /// `distance(points, closed:, to: box) <= limit`, visiting only the
    /// runs within `limit` of `box`.
    static func isWithin(_ limit: Double, of points: [Point], closed: Bool, _ chunks: PolylineChunks, _ box: Box) -> Bool {
        if chunks.isEmpty { return distance(points, closed: closed, to: box) <= limit }
        let n = points.count
        var within = false
        chunks.forEachRun(near: box, within: limit, count: n) { run in
            for k in run where closed || k + 1 < n {
                if segmentDistance(points[k], points[k + 1 == n ? 0 : k + 1], box) <= limit {
                    within = true
                    return false
                }
            }
            return true
        }
        return within
    }
}
