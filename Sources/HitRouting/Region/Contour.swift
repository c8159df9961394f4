/// One closed loop of an outline, in local coordinates (y-down). The
/// primitives traced by hitroute run clockwise on screen and wind +1.
///
/// Point tests are exact for every kind: ellipses and rounded rectangles by
/// their equations, polygons edge by edge, curves by solving each
/// x/y-monotonic piece for the ray's crossing. Box queries (hit slop) and the
/// stroke distance of curves use `outline`, a polyline within the compile
/// tolerance of the true curve.
struct Contour: Sendable {
    enum Kind: Sendable {
        /// Axis-aligned ellipse, `rx, ry > 0`.
        case ellipse(center: Point, rx: Double, ry: Double)
        /// Axis-aligned rectangle with circular corners, `0 < radius ≤ min(w, h)/2`.
        case roundedRect(Box, radius: Double)
        /// Straight edges through `outline`.
        case polygon
        /// Lines and curves split into pieces monotonic in x and y.
        case curves(CurvePieces)
    }

    var kind: Kind
    /// The outline as a polyline: the vertices of a polygon, else a
    /// flattening (empty when no stroke or slop needs it).
    var outline: [Point]
    /// Whether the stroke includes the edge from the last point back to the
    /// first (false for polylines and unclosed path subpaths). Filling
    /// always closes.
    var closed: Bool
    /// Bounds of the outline (exact for every kind).
    var bounds: Box
    /// The closed outline without its parts of zero area (spikes, lines
    /// that run out and back: `Polyline.withoutZeroAreaParts`), where the
    /// fill grows by hit slop; empty when the fill of this contour has no
    /// area at all. Set by `Region` only when it has fill and slop.
    var fillBoundary: [Point] = []
    /// Runs of `outline` and of `fillBoundary` for long ones (else none),
    /// set by `Region` with them: queries skip the runs far from the point.
    var outlineChunks = PolylineChunks.none
    var fillBoundaryChunks = PolylineChunks.none

    /// The winding number of this contour alone around `p`; adds the
    /// edges, pieces and steps it read to `work` (`Walk.work`), and
    /// ``windingWork`` for a contour whose bounds do not settle it.
    func winding(_ p: Point, work: inout Int) -> Int {
        guard p.y >= bounds.minY, p.y <= bounds.maxY, p.x <= bounds.maxX else { return 0 }
        work &+= Contour.windingWork
        switch kind {
        case .ellipse(let c, let rx, let ry):
            let dx = (p.x - c.x) / rx
            let dy = (p.y - c.y) / ry
            return dx * dx + dy * dy < 1 ? 1 : 0
        case .roundedRect(let box, let r):
            return roundedRectSignedDistance(box, r, p) < 0 ? 1 : 0
        case .polygon:
            return Polyline.winding(outline, outlineChunks, p, work: &work)
        case .curves(let curves):
            return curves.winding(p, work: &work)
        }
    }

    /// What taking a contour's winding counts beyond the edges and pieces
    /// it reads, once its bounds do not settle it: about what reading 16
    /// edges costs (`hitroute-bench work` measures both), so that a unit of
    /// work costs about the same whatever the shape.
    static let windingWork = 16

    /// Whether `p` lies within `halfStroke` of the outline: in the stroke
    /// band. Adds the edges it read to `work`.
    func isInStroke(_ p: Point, halfStroke: Double, work: inout Int) -> Bool {
        switch kind {
        case .ellipse, .roundedRect: return strokeDistance(p) <= halfStroke
        case .polygon, .curves: return Polyline.isWithin(halfStroke, of: outline, closed: closed, outlineChunks, p, work: &work)
        }
    }

    /// Distance from `p` to the stroked outline (for `stroke`).
    func strokeDistance(_ p: Point) -> Double {
        switch kind {
        case .ellipse(let c, let rx, let ry):
            return ellipseOutlineDistance(rx: rx, ry: ry, p - c)
        case .roundedRect(let box, let r):
            return abs(roundedRectSignedDistance(box, r, p))
        case .polygon, .curves:
            return Polyline.distance(outline, closed: closed, to: p)
        }
    }
}

/// Signed distance to a rounded rectangle's outline: negative inside.
func roundedRectSignedDistance(_ box: Box, _ r: Double, _ p: Point) -> Double {
    let hx = box.width / 2 - r
    let hy = box.height / 2 - r
    let qx = abs(p.x - (box.minX + box.maxX) / 2) - hx
    let qy = abs(p.y - (box.minY + box.maxY) / 2) - hy
    let ox = max(qx, 0)
    let oy = max(qy, 0)
    return (ox * ox + oy * oy).squareRoot() + min(max(qx, qy), 0) - r
}
