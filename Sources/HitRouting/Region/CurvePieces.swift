/// A closed path contour's segments split into pieces monotonic in x and
/// y, for the exact fill test (local coordinates, y-down): the winding
/// number is the sum of each piece's crossing of the ray from the point
/// towards +x, the same rule as `Polyline.crossing`.
///
/// A contour of more than `2 · PolylineChunks.size` pieces keeps the
/// bounds of each run of `PolylineChunks.size` consecutive pieces, and of
/// each group of runs (`PolylineChunks`). A group or run that cannot cross
/// the ray costs one box; one wholly right of the point counts from its two
/// ends, since its crossings telescope. Only runs straddling the point are
/// read piece by piece. Without the runs a
/// path of 10,000 cubics cost a 10,000-point batch 10⁸ piece tests, each
/// up to 64 bisection steps. The answers are exactly those of the plain
/// loop (`winding(_:work:)` with no runs): every skip is one each piece
/// of the run would make itself.
struct CurvePieces: Sendable {
    /// In path order, each starting where the one before ends (the last
    /// ends where the first starts: filling closes the subpath).
    let pieces: [MonotonePiece]
    /// The segments the pieces are cut from (`MonotonePiece.segment`).
    let segments: [Segment]
    /// Bounds of each run of pieces; none for short contours.
    let runs: PolylineChunks

    init(pieces: [MonotonePiece], segments: [Segment]) {
        self.pieces = pieces
        self.segments = segments
        runs = CurvePieces.runs(of: pieces)
    }

    /// Run boxes for `pieces`, or none when they are few. A run or group
    /// is read from its ends only if each piece starts exactly where the
    /// one before ends, which holds by construction
    /// (`PathContours.contour`): should it ever not, there are no runs and
    /// every piece is read.
    static func runs(of pieces: [MonotonePiece]) -> PolylineChunks {
        PolylineChunks(count: pieces.count) { run in
            var box = Box.empty
            for k in run {
                guard k == 0 || pieces[k].a == pieces[k - 1].b else { return nil }
                box.formUnion(pieces[k].a)
                box.formUnion(pieces[k].b)
            }
            return box
        }
    }

    /// The winding number around `p`; adds the boxes, pieces and
    /// bisection steps it read to `work`.
    /// - Complexity: O(pieces) without runs; with them O(pieces / size²)
    ///   plus O(size) per group and O(size · 64) per run whose box holds
    ///   `p.x` across `p.y`.
    func winding(_ p: Point, work: inout Int) -> Int {
        var steps = 0
        defer { work &+= steps }
        guard !runs.isEmpty else {
            work &+= pieces.count
            return pieces.reduce(0) { $0 + $1.crossing(p, segments, work: &steps) }
        }
        return runs.winding(
            p, count: pieces.count, work: &work,
            ends: { (pieces[$0.lowerBound].a, pieces[$0.upperBound - 1].b) },
            crossings: { run in
                var w = 0
                for k in run { w += pieces[k].crossing(p, segments, work: &steps) }
                return w
            })
    }
}

/// A piece of a segment on `[t0, t1]` along which x and y are both monotonic,
/// so its bounds are its end points `a`, `b`.
struct MonotonePiece: Sendable {
    var segment: Int32
    var t0: Double
    var t1: Double
    var a: Point
    var b: Point

    /// The winding contribution at `p` (same ray rule as `Polyline.crossing`);
    /// adds the bisection steps it took to `work`.
    func crossing(_ p: Point, _ segments: [Segment], work: inout Int) -> Int {
        guard (a.y <= p.y) != (b.y <= p.y) else { return 0 }
        let direction = b.y > a.y ? 1 : -1
        if p.x >= max(a.x, b.x) { return 0 }
        if p.x < min(a.x, b.x) { return direction }
        let s = segments[Int(segment)]
        if case .line(let la, let lb) = s { return Polyline.crossing(la, lb, p) }
        // Bisect for y(t) = p.y: y is monotonic on [t0, t1].
        var lo = t0
        var hi = t1
        let rising = b.y > a.y
        var steps = 0
        defer { work &+= steps }
        while steps < 64 {
            let mid = (lo + hi) / 2
            if mid == lo || mid == hi { break }
            if (s.point(at: mid).y <= p.y) == rising { lo = mid } else { hi = mid }
            steps &+= 1
        }
        return s.point(at: (lo + hi) / 2).x > p.x ? direction : 0
    }
}
