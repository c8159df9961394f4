/// Bounding boxes of runs of `size` consecutive edges of a long outline,
/// and of groups of `size` runs, in the outline's local coordinates: point
/// and box queries skip the groups and runs whose box cannot matter, so
/// that a flattened outline of 65,536 points (a huge arc or ellipse,
/// `RegionBuilder.maxFlattenedPointsPerContour`) or a polygon of 100,000
/// vertices costs a query O(n / size² + size · groups near the query +
/// size · runs near it) instead of O(n). Without them a batch of a few
/// thousand points against one such layer with hit slop took seconds (the
/// API fuzzer's timeout-ecd54aec).
///
/// The outline is read as a ring: edge `k` runs from `points[k]` to
/// `points[k + 1]`, the last one back to `points[0]`; queries on an open
/// polyline skip that closing edge (its run's box then only covers more).
/// Only outlines of more than `2 · size` points get boxes; shorter ones are
/// queried by the plain loops, as before. `CurvePieces` keeps the same
/// boxes over a path's monotonic pieces.
///
/// The skips are exact in real arithmetic: an edge lies in its run's box,
/// a run in its group's.
///
/// Every query adds what it read to `work` (`Walk.work`): one for each box
/// and each edge it looks at; `Region.test` without runs counts every edge.
struct PolylineChunks: Sendable {
    /// Edges per run, and runs per group.
    static let size = 32

    /// `boxes[c]` covers edges `c · size ..< min((c + 1) · size, n)`: the
    /// points from `c · size` through the last edge's end.
    let boxes: [Box]
    /// `groups[g]` covers `boxes[g · size ..< min((g + 1) · size, boxes.count)]`.
    let groups: [Box]

    static let none = PolylineChunks(boxes: [])

    /// Runs of `size` items with the given boxes, grouped (`CurvePieces`
    /// builds its own).
    init(boxes: [Box]) {
        self.boxes = boxes
        groups = stride(from: 0, to: boxes.count, by: Self.size).map { g in
            boxes[g..<min(g + Self.size, boxes.count)].reduce(into: Box.empty) { $0.formUnion($1) }
        }
    }

    /// Runs of `size` over `n` items, each run's box given by `box` for
    /// its item range; none when `n ≤ 2 · size`, or when `box` gives nil
    /// for some run.
    /// - Complexity: O(n) calls' worth of `box`.
    init(count n: Int, _ box: (Range<Int>) -> Box?) {
        guard n > 2 * Self.size else {
            self.init(boxes: [])
            return
        }
        var boxes: [Box] = []
        boxes.reserveCapacity((n + Self.size - 1) / Self.size)
        for start in stride(from: 0, to: n, by: Self.size) {
            guard let b = box(start..<min(start + Self.size, n)) else {
                self.init(boxes: [])
                return
            }
            boxes.append(b)
        }
        self.init(boxes: boxes)
    }

    /// The runs of `points` (none when there are at most `2 · size`): each
    /// box covers its edges, so the point after the run's last too.
    /// - Complexity: O(n).
    init(_ points: [Point]) {
        let n = points.count
        self.init(count: n) { run in
            var box = Box(covering: points[run])
            box.formUnion(points[run.upperBound == n ? 0 : run.upperBound])
            return box
        }
    }

    var isEmpty: Bool { boxes.isEmpty }

    /// The edges of run `c` of an outline of `n` points.
    @inline(__always)
    func edges(of c: Int, count n: Int) -> Range<Int> {
        c * Self.size..<min((c + 1) * Self.size, n)
    }

    /// The runs of group `g`.
    @inline(__always)
    func runs(ofGroup g: Int) -> Range<Int> {
        g * Self.size..<min((g + 1) * Self.size, boxes.count)
    }

    /// The edges of group `g` of an outline of `n` points.
    @inline(__always)
    func edges(ofGroup g: Int, count n: Int) -> Range<Int> {
        g * Self.size * Self.size..<min((g + 1) * Self.size * Self.size, n)
    }

    /// Calls `body` with the edge ranges of the runs whose box lies within
    /// `limit` (Chebyshev, so no nearer than the true distance) of the
    /// closed box `q`, until it returns false. Adds the boxes it reads and
    /// the edges of the runs it visits to `work`.
    @inline(__always)
    func forEachRun(near q: Box, within limit: Double, count n: Int, work: inout Int, _ body: (Range<Int>) -> Bool) {
        func far(_ b: Box) -> Bool { max(b.minX - q.maxX, q.minX - b.maxX, b.minY - q.maxY, q.minY - b.maxY) > limit }
        work &+= groups.count
        for (g, group) in groups.enumerated() where !far(group) {
            let runs = runs(ofGroup: g)
            work &+= runs.count
            for c in runs where !far(boxes[c]) {
                let run = edges(of: c, count: n)
                work &+= run.count
                if !body(run) { return }
            }
        }
    }

    /// The sum of the crossings of the ray from `p` towards +x over an
    /// outline of `n` edges (or curve pieces): a group or run whose box
    /// misses the ray's line or lies left of `p` adds nothing; one wholly
    /// right of `p` adds what its ends telescope to (every crossing of the
    /// line counts there, +1 down and −1 up); only runs whose box holds
    /// `p.x` across `p.y` are read, by `crossings`. `ends(r)` gives the
    /// first point of the edges `r` and the last (each edge must start
    /// where the one before ends). Adds the boxes and edges read to `work`.
    /// - Complexity: O(n / size²) plus O(size) per group and per run
    ///   straddling `p`.
    @inline(__always)
    func winding(
        _ p: Point, count n: Int, work: inout Int,
        ends: (Range<Int>) -> (first: Point, last: Point), crossings: (Range<Int>) -> Int
    ) -> Int {
        func misses(_ b: Box) -> Bool { b.maxY <= p.y || b.minY > p.y || b.maxX < p.x }
        func telescoped(_ r: Range<Int>) -> Int {
            let (first, last) = ends(r)
            return (last.y <= p.y ? 0 : 1) - (first.y <= p.y ? 0 : 1)
        }
        var w = 0
        work &+= groups.count
        for (g, group) in groups.enumerated() where !misses(group) {
            if group.minX > p.x {
                w += telescoped(edges(ofGroup: g, count: n))
                continue
            }
            let runs = runs(ofGroup: g)
            work &+= runs.count
            for c in runs where !misses(boxes[c]) {
                let run = edges(of: c, count: n)
                if boxes[c].minX > p.x {
                    w += telescoped(run)
                    continue
                }
                work &+= run.count
                w += crossings(run)
            }
        }
        return w
    }

    /// The number of runs `forEachRun(near:within:count:_:)` visits (for tests).
    func runsVisited(near q: Box, within limit: Double, count n: Int) -> Int {
        var visited = 0
        var work = 0
        forEachRun(near: q, within: limit, count: n, work: &work) { _ in
            visited += 1
            return true
        }
        return visited
    }
}

extension Polyline {
    /// `winding(points, p)`, skipping groups and runs that cannot cross
    /// the ray from `p` towards +x and counting those wholly right of `p`
    /// from their ends (`PolylineChunks.winding`).
    static func winding(_ points: [Point], _ chunks: PolylineChunks, _ p: Point, work: inout Int) -> Int {
        if chunks.isEmpty {
            work &+= points.count
            return winding(points, p)
        }
        return points.withUnsafeBufferPointer { pts in
            let n = pts.count
            return chunks.winding(
                p, count: n, work: &work,
                ends: { (pts[$0.lowerBound], pts[$0.upperBound == n ? 0 : $0.upperBound]) },
                crossings: { run in
                    var w = 0
                    for k in run { w += crossing(pts[k], pts[k + 1 == n ? 0 : k + 1], p) }
                    return w
                })
        }
    }

    /// `distance(points, closed:, to: p) <= limit`, visiting only the runs
    /// within `limit` of `p`.
    static func isWithin(
        _ limit: Double, of points: [Point], closed: Bool, _ chunks: PolylineChunks, _ p: Point, work: inout Int
    ) -> Bool {
        if chunks.isEmpty {
            work &+= points.count
            return distance(points, closed: closed, to: p) <= limit
        }
        return chunks.anyEdge(
            of: points, closed: closed, near: Box(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y),
            within: limit, work: &work
        ) { a, b in
            let d2 = segmentDistanceSquared(a, b, p)
            // As `distance` measures: squared, or scaled where the square overflows.
            return d2.isFinite ? d2.squareRoot() <= limit : scaledSegmentDistance(a, b, p) <= limit
        }
    }

    /// `intersects(points, closed:, box)`, visiting only the runs whose box
    /// meets `box`.
    static func intersects(_ points: [Point], closed: Bool, _ chunks: PolylineChunks, _ box: Box, work: inout Int) -> Bool {
        if chunks.isEmpty {
            work &+= points.count
            return intersects(points, closed: closed, box)
        }
        return chunks.anyEdge(of: points, closed: closed, near: box, within: 0, work: &work) { segmentIntersects($0, $1, box) }
    }

    /// `distance(points, closed:, to: box) <= limit`, visiting only the
    /// runs within `limit` of `box`.
    static func isWithin(
        _ limit: Double, of points: [Point], closed: Bool, _ chunks: PolylineChunks, _ box: Box, work: inout Int
    ) -> Bool {
        if chunks.isEmpty {
            work &+= points.count
            return distance(points, closed: closed, to: box) <= limit
        }
        return chunks.anyEdge(of: points, closed: closed, near: box, within: limit, work: &work) {
            segmentDistance($0, $1, box) <= limit
        }
    }
}

extension PolylineChunks {
    /// Whether `test` holds for an edge `a → b` of `points` in a run within
    /// `limit` of `q` (`forEachRun`); the closing edge counts only when
    /// `closed`. Stops at the first.
    @inline(__always)
    func anyEdge(
        of points: [Point], closed: Bool, near q: Box, within limit: Double, work: inout Int,
        _ test: (Point, Point) -> Bool
    ) -> Bool {
        let n = points.count
        var found = false
        forEachRun(near: q, within: limit, count: n, work: &work) { run in
            for k in run where closed || k + 1 < n {
                if test(points[k], points[k + 1 == n ? 0 : k + 1]) {
                    found = true
                    return false
                }
            }
            return true
        }
        return found
    }
}
