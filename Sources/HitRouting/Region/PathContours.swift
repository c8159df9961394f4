/// Splits parsed path data into contours: one per subpath that draws
/// something (a subpath made of a single point contributes nothing, SPEC
/// §2.2). Unclosed subpaths are filled as if closed but stroked open.
enum PathContours {
    static func build(_ elements: [PathElement], needsOutline: Bool, tolerance: Double) -> [Contour] {
        var budget = FlatteningBudget()
        return build(elements, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
    }

    /// `build(_:needsOutline:tolerance:)`, drawing the flattened points from `budget`.
    static func build(_ elements: [PathElement], needsOutline: Bool, tolerance: Double, budget: inout FlatteningBudget)
        -> [Contour]
    {
        var contours: [Contour] = []
        var segments: [Segment] = []
        var start = Point.zero
        var current = Point.zero

        func finish(closed: Bool) {
            defer { segments.removeAll(keepingCapacity: true) }
            guard !segments.isEmpty else { return }
            if let c = contour(segments, closed: closed, needsOutline: needsOutline, tolerance: tolerance, budget: &budget) {
                contours.append(c)
            }
        }

        for element in elements {
            switch element {
            case .move(let p):
                finish(closed: false)
                start = p
                current = p
            case .line(let p):
                segments.append(.line(current, p))
                current = p
            case .quad(let c, let p):
                segments.append(.quad(current, c, p))
                current = p
            case .cubic(let c1, let c2, let p):
                segments.append(.cubic(current, c1, c2, p))
                current = p
            case .arc(let radii, let rotation, let large, let sweep, let p):
                if let arc = EllipticArc.fromEndpoints(
                    from: current, to: p, radii: radii, rotationDegrees: rotation, largeArc: large, sweep: sweep)
                {
                    segments.append(.arc(arc, from: current, to: p))
                } else if current != p {
                    segments.append(.line(current, p))  // a zero radius draws a line
                }
                current = p
            case .close:
                if current != start { segments.append(.line(current, start)) }
                finish(closed: true)
                current = start  // a command after Z starts a new subpath here
            }
        }
        finish(closed: false)
        return contours
    }

    /// One contour from a subpath's segments, or nil when they span a single point.
    static func contour(
        _ segments: [Segment], closed: Bool, needsOutline: Bool, tolerance: Double, budget: inout FlatteningBudget
    ) -> Contour? {
        var pieces: [MonotonePiece] = []
        var bounds = Box.empty
        var all = segments
        if let first = segments.first, let last = segments.last, last.end != first.start {
            all.append(.line(last.end, first.start))  // filling closes the subpath
        }
        for (index, s) in all.enumerated() {
            var t0 = 0.0
            var a = s.start
            for t1 in s.extremaParameters() + [1] where t1 > t0 {
                let b = s.point(at: t1)
                pieces.append(MonotonePiece(segment: Int32(index), t0: t0, t1: t1, a: a, b: b))
                bounds.formUnion(a)
                bounds.formUnion(b)
                (t0, a) = (t1, b)
            }
        }
        guard bounds.width > 0 || bounds.height > 0 else { return nil }
        let outline = needsOutline ? flatten(segments, tolerance: tolerance, budget: &budget) : []
        return Contour(kind: .curves(CurvePieces(pieces: pieces, segments: all)), outline: outline, closed: closed, bounds: bounds)
    }

    /// A polyline within `tolerance` of the segments, relaxed when that would
    /// take more points than `budget` grants this contour.
    static func flatten(_ segments: [Segment], tolerance: Double, budget: inout FlatteningBudget) -> [Point] {
        var steps = segments.map { $0.flatteningSteps(tolerance: tolerance) }
        let total = steps.reduce(0, +)  // ≤ 2^20 per segment: no overflow for any array that fits in memory
        let budget = budget.grant(segments: segments.count, wanted: total)
        if total > budget {
            let shrink = Double(budget) / Double(total)
            steps = steps.map { max(1, Int(Double($0) * shrink)) }
        }
        var out: [Point] = []
        out.reserveCapacity(steps.reduce(1, +))
        if let first = segments.first { out.append(first.start) }
        for (s, n) in zip(segments, steps) {
            if case .line(_, let b) = s {
                out.append(b)
                continue
            }
            for k in 1...n { out.append(s.point(at: Double(k) / Double(n))) }
        }
        return out
    }
}

/// How many flattened points one region may still take: a contour gets
/// what it needs up to `RegionBuilder.maxFlattenedPointsPerContour`, while
/// the region's `RegionBuilder.maxFlattenedPointsPerRegion` last, and at
/// least 2 per segment and 16 in all (its tolerance relaxed), so that a
/// hostile shape of many big curves (a compound of 100,000 large circles
/// with a stroke) cannot take memory by the gigabyte.
struct FlatteningBudget {
    var remaining = RegionBuilder.maxFlattenedPointsPerRegion

    /// The points granted to a contour of `segments` segments that would
    /// take `wanted` at full tolerance; takes them from the budget.
    mutating func grant(segments: Int, wanted: Int) -> Int {
        let granted = max(2 * segments, 16, min(wanted, RegionBuilder.maxFlattenedPointsPerContour, remaining))
        remaining = max(0, remaining - min(granted, wanted))
        return granted
    }
}
