/// Turns a `Shape` into a `Region` (SPEC §2.2).
///
/// `tolerance` is the largest distance, in local units, that a flattened
/// curve may stray from the true one; it is used only where a polyline
/// stands in for a curve (stroke distance to curves, hit-slop box queries).
/// Fill tests are exact whatever the tolerance.
public enum RegionBuilder {
    /// Flattened points allowed per contour before the tolerance is relaxed,
    /// so that a hostile path (huge arcs, tiny tolerance) cannot exhaust memory.
    public static let maxFlattenedPointsPerContour = 1 << 16
    /// Flattened points allowed per region (over all its contours) before
    /// each further contour gets only a few (see `FlatteningBudget`).
    public static let maxFlattenedPointsPerRegion = 1 << 18
    /// Flattened points allowed per compiled scene (64 MiB of points), over
    /// all its regions: past it, each further contour gets only a few, so
    /// that 150,000 layers of big stroked circles cannot take 10^10 points.
    public static let maxFlattenedPointsPerScene = 1 << 22

    /// Builds the region of `shape` grown by `slop`.
    /// - Complexity: O(vertices + segments), plus the flattening when a stroke
    ///   or slop needs it.
    public static func region(of shape: Shape, slop: SlopEdges, tolerance: Double) -> Region {
        var budget = FlatteningBudget()
        return region(of: shape, slop: slop, tolerance: tolerance, budget: &budget)
    }

    /// `region(of:slop:tolerance:)`, drawing its flattened points from `budget`.
    static func region(of shape: Shape, slop: SlopEdges, tolerance: Double, budget: inout FlatteningBudget) -> Region {
        let stroke = shape.stroke ?? 0
        let needsOutline = stroke > 0 || !slop.isZero
        if case .mask(let mask) = shape.geometry {
            guard mask.width > 0, mask.height > 0 else {
                return Region(contours: [], fillRule: .nonzero, fill: shape.fill ?? true, stroke: stroke, slop: slop)
            }
            return Region(mask: MaskRegion(mask, needsTable: needsOutline), fill: shape.fill ?? true, stroke: stroke, slop: slop)
        }
        let contours = self.contours(of: shape.geometry, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
        return Region(
            contours: contours, fillRule: shape.fillRule ?? .nonzero, fill: shape.fill ?? true,
            stroke: stroke, slop: slop)
    }

    static func contours(
        of geometry: ShapeGeometry, needsOutline: Bool, tolerance: Double, budget: inout FlatteningBudget
    ) -> [Contour] {
        switch geometry {
        case .rect(let x, let y, let w, let h, let cornerRadius):
            guard w > 0, h > 0 else { return [] }
            let box = Box(minX: x, minY: y, maxX: x + w, maxY: y + h)
            let r = min(cornerRadius ?? 0, w / 2, h / 2)
            if r > 0 {
                var c = Contour(kind: .roundedRect(box, radius: r), outline: [], closed: true, bounds: box)
                if needsOutline { c.outline = flatten(roundedRect: box, radius: r, tolerance: tolerance, budget: &budget) }
                return [c]
            }
            let q = box.corners  // clockwise on screen
            return [Contour(kind: .polygon, outline: q, closed: true, bounds: box)]
        case .ellipse(let cx, let cy, let rx, let ry):
            return ellipse(Point(cx, cy), rx, ry, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
        case .circle(let cx, let cy, let r):
            return ellipse(Point(cx, cy), r, r, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
        case .polygon(let points), .polyline(let points):
            let closed: Bool
            if case .polygon = geometry { closed = true } else { closed = false }
            let bounds = Box(covering: points)
            guard bounds.width > 0 || bounds.height > 0 else { return [] }  // a single point
            return [Contour(kind: .polygon, outline: points, closed: closed, bounds: bounds)]
        case .path(_, let elements):
            return PathContours.build(elements, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
        case .compound(let members):
            var out: [Contour] = []
            for m in members {
                out += contours(of: m.geometry, needsOutline: needsOutline, tolerance: tolerance, budget: &budget)
            }
            return out
        case .mask:
            return []  // a mask has no path; a compound member mask contributes nothing (the API refuses one)
        }
    }

    private static func ellipse(
        _ c: Point, _ rx: Double, _ ry: Double, needsOutline: Bool, tolerance: Double, budget: inout FlatteningBudget
    ) -> [Contour] {
        guard rx > 0, ry > 0 else { return [] }
        let bounds = Box(minX: c.x - rx, minY: c.y - ry, maxX: c.x + rx, maxY: c.y + ry)
        var contour = Contour(kind: .ellipse(center: c, rx: rx, ry: ry), outline: [], closed: true, bounds: bounds)
        if needsOutline {
            let arc = EllipticArc(center: c, rx: rx, ry: ry, cosPhi: 1, sinPhi: 0, theta0: 0, deltaTheta: 2 * .pi)
            contour.outline = PathContours.flatten(
                [.arc(arc, from: arc.point(at: 0), to: arc.point(at: 0))], tolerance: tolerance, budget: &budget)
        }
        return [contour]
    }

    private static func flatten(roundedRect b: Box, radius r: Double, tolerance: Double, budget: inout FlatteningBudget)
        -> [Point]
    {
        // Clockwise from the top edge: each corner is a quarter circle.
        func corner(_ cx: Double, _ cy: Double, from angle: Double) -> Segment {
            let arc = EllipticArc(
                center: Point(cx, cy), rx: r, ry: r, cosPhi: 1, sinPhi: 0, theta0: angle, deltaTheta: .pi / 2)
            return .arc(arc, from: arc.point(at: 0), to: arc.point(at: 1))
        }
        let segments: [Segment] = [
            .line(Point(b.minX + r, b.minY), Point(b.maxX - r, b.minY)),
            corner(b.maxX - r, b.minY + r, from: -.pi / 2),
            .line(Point(b.maxX, b.minY + r), Point(b.maxX, b.maxY - r)),
            corner(b.maxX - r, b.maxY - r, from: 0),
            .line(Point(b.maxX - r, b.maxY), Point(b.minX + r, b.maxY)),
            corner(b.minX + r, b.maxY - r, from: .pi / 2),
            .line(Point(b.minX, b.maxY - r), Point(b.minX, b.minY + r)),
            corner(b.minX + r, b.minY + r, from: .pi),
        ]
        return PathContours.flatten(segments, tolerance: tolerance, budget: &budget)
    }
}
