/// A layer's compiled hit region in its local coordinates: the fill area of
/// its contours under a fill rule, the stroke band, both grown by hit slop
/// (SPEC §2.1, §2.2). Immutable once built.
///
/// `@unchecked Sendable`: every field is immutable, and `plainPolygon` and
/// `contourView` point into storage the region itself holds and never
/// writes.
public struct Region: @unchecked Sendable {
    // Stored with what every test reads first.
    /// Bounds of the whole region, stroke and slop included (local units).
    public let bounds: Box
    /// Set when the region is one polygon filled without stroke or slop:
    /// its vertices, read in place (`test(_:_:)`). They are the storage of
    /// the contour's `outline`, which this immutable region holds, so the
    /// pointer is valid for as long as the region is.
    let plainPolygon: UnsafeBufferPointer<Point>?
    /// `contours`' elements, read in place by `test(_:_:)` (a copy of the
    /// array would be a retain, on a counter every thread routing through
    /// the scene shares).
    let contourView: UnsafeBufferPointer<Contour>
    let contours: [Contour]
    /// Half the stroke width: points this close to the outline are inside.
    public let halfStroke: Double
    /// Whether the interior is part of the region.
    public let fill: Bool
    public let fillRule: FillRule
    /// Set when the region is one axis-aligned rectangle filled without
    /// stroke: then slop grows it exactly and keeps it half-open.
    let plainRect: Box?
    /// Slop around the region, local units.
    public let slop: SlopEdges
    /// Set for a `mask` shape: its pixels, which take the place of contours.
    public let mask: MaskRegion?

    /// The number of contours.
    public var contourCount: Int { contours.count }

    /// The region of a mask's pixels (it has no contours; `fillRule` has no effect).
    init(mask: MaskRegion, fill: Bool, stroke: Double, slop: SlopEdges) {
        self.init(contours: [], fillRule: .nonzero, fill: fill, stroke: stroke, slop: slop, mask: mask)
    }

    init(contours: [Contour], fillRule: FillRule, fill: Bool, stroke: Double, slop: SlopEdges, mask: MaskRegion? = nil) {
        self.mask = mask
        var contours = contours
        // What slop grows (SPEC §2.1: the region, fill area ∪ stroke band):
        // the stroked outline, and the fill's boundary without its parts
        // of zero area (a mask's pixels all have area). An empty region stays empty.
        var outline = mask?.outlineBounds ?? .empty
        var grown = fill ? (mask?.outlineBounds ?? .empty) : .empty
        for k in contours.indices {
            outline.formUnion(contours[k].bounds)
            if fill && !slop.isZero {
                switch contours[k].kind {
                case .ellipse, .roundedRect: contours[k].fillBoundary = contours[k].outline  // positive radii: area
                case .polygon, .curves: contours[k].fillBoundary = Polyline.withoutZeroAreaParts(contours[k].outline)
                }
                if !contours[k].fillBoundary.isEmpty { grown.formUnion(Box(covering: contours[k].fillBoundary)) }
            }
            contours[k].outlineChunks = PolylineChunks(contours[k].outline)
            contours[k].fillBoundaryChunks =
                contours[k].fillBoundary == contours[k].outline
                ? contours[k].outlineChunks : PolylineChunks(contours[k].fillBoundary)
        }
        if stroke > 0 { grown.formUnion(outline) }
        self.contours = contours
        contourView = self.contours.withUnsafeBufferPointer { $0 }
        self.fillRule = fillRule
        self.fill = fill
        self.halfStroke = stroke / 2
        self.slop = slop
        var bounds = outline.outset(by: stroke / 2)
        bounds.formUnion(grown.outset(by: stroke / 2).outset(top: slop.top, right: slop.right, bottom: slop.bottom, left: slop.left))
        self.bounds = bounds
        if fill, stroke == 0, self.contours.count == 1, case .polygon = self.contours[0].kind,
            self.contours[0].outline.count == 4, let box = axisAlignedRect(self.contours[0].outline)
        {
            plainRect = box
        } else {
            plainRect = nil
        }
        // A long polygon is tested through its contour, whose runs skip most edges.
        if fill, stroke == 0, slop.isZero, plainRect == nil, self.contours.count == 1, case .polygon = self.contours[0].kind,
            self.contours[0].outlineChunks.isEmpty
        {
            plainPolygon = self.contours[0].outline.withUnsafeBufferPointer { $0 }
        } else {
            plainPolygon = nil
        }
    }

    /// Where `p` (local coordinates) falls relative to the region.
    ///
    /// - Complexity: O(1) outside `bounds`; inside it, O(vertices) for
    ///   outlines of up to 64 points, O(vertices / 32² + 32 · (groups +
    ///   runs) near `p`) for longer ones (`PolylineChunks`), and likewise
    ///   in curve pieces for a path's fill (`CurvePieces`).
    public func test(_ p: Point) -> RegionTest {
        var work = 0
        return test(p, work: &work)
    }

    /// `test(p)`, adding what it read to `work` (`Walk.work`).
    public func test(_ p: Point, work: inout Int) -> RegionTest {
        withUnsafePointer(to: self) { Region.test($0, p, work: &work) }
    }

    /// `region.test(p)`, reading the region in place: calling a method on
    /// `pointee` would copy the region and retain its arrays. Adds what it
    /// read to `work` (`Walk.work`): 1 for a point inside the bounds, 1 per
    /// contour it looks at (a contour its bounds settle costs O(1), but a
    /// path can hold tens of thousands) and 16 more per contour whose
    /// winding its bounds do not settle (`Contour.windingWork`), plus every
    /// vertex, edge, curve piece, bisection step, run box and mask line it
    /// reads.
    static func test(_ r: UnsafePointer<Region>, _ p: Point, work: inout Int) -> RegionTest {
        guard r.pointee.bounds.contains(p) else { return .outside }
        work &+= 1
        if let rect = r.pointee.plainRect {
            let slop = r.pointee.slop
            if p.x >= rect.minX && p.x < rect.maxX && p.y >= rect.minY && p.y < rect.maxY { return .inside }
            if !slop.isZero && p.x >= rect.minX - slop.left && p.x < rect.maxX + slop.right
                && p.y >= rect.minY - slop.top && p.y < rect.maxY + slop.bottom
            {
                return .insideSlop
            }
            return .outside
        }
        if let polygon = r.pointee.plainPolygon {
            work &+= polygon.count
            return r.pointee.fillRule.plainTest(polygon, p)
        }
        if r.pointee.mask != nil { return maskTest(r, p, work: &work) }
        let contours = r.pointee.contourView
        let fill = r.pointee.fill
        let halfStroke = r.pointee.halfStroke
        var containing = 0
        var winding = 0
        if fill {
            work &+= contours.count
            for i in contours.indices {
                let w = contours[i].winding(p, work: &work)
                winding += w
                if w != 0 { containing += 1 }
            }
            if r.pointee.fillRule.fills(winding: winding) { return .inside }
        }
        if halfStroke > 0 {
            for c in contours {
                work &+= 1
                if c.isInStroke(p, halfStroke: halfStroke, work: &work) { return .insideStroke }
            }
        }
        let slop = r.pointee.slop
        if !slop.isZero {
            // p lies in region ⊕ [-left, right] × [-top, bottom] iff the box
            // p − slop meets the region. A box that misses every outline lies
            // wholly in or out of the fill, and p is not in it here.
            let q = Box(minX: p.x - slop.right, minY: p.y - slop.bottom, maxX: p.x + slop.left, maxY: p.y + slop.top)
            for c in contours {
                work &+= 1
                if fill && Polyline.intersects(c.fillBoundary, closed: true, c.fillBoundaryChunks, q, work: &work) { return .insideSlop }
                if halfStroke > 0 && Polyline.isWithin(halfStroke, of: c.outline, closed: c.closed, c.outlineChunks, q, work: &work) {
                    return .insideSlop
                }
            }
        }
        return containing > 0 ? .inHole(contours: containing, winding: winding) : .outside
    }
}

extension Region {
    /// `test` for a mask region, out of line: the common paths stay short.
    @inline(never)
    static func maskTest(_ r: UnsafePointer<Region>, _ p: Point, work: inout Int) -> RegionTest {
        r.pointee.mask.unsafelyUnwrapped.test(
            p, fill: r.pointee.fill, halfStroke: r.pointee.halfStroke, slop: r.pointee.slop, work: &work)
    }
}

extension FillRule {
    /// Where `p` falls relative to one filled polygon under this rule.
    func plainTest(_ polygon: UnsafeBufferPointer<Point>, _ p: Point) -> RegionTest {
        let w = Polyline.winding(polygon, p)
        if fills(winding: w) { return .inside }
        return w != 0 ? .inHole(contours: 1, winding: w) : .outside
    }
}

/// The outcome of testing a point against a region. Several can apply; the
/// first in SPEC §3's order wins: inside, inside-stroke, inside-slop.
public enum RegionTest: Sendable, Equatable {
    case inside
    case insideStroke
    case insideSlop
    case outside
    /// With fill on, inside `contours` contours taken alone (total winding
    /// `winding`) but excluded by the fill rule.
    case inHole(contours: Int, winding: Int)

    public var isHit: Bool {
        switch self {
        case .inside, .insideStroke, .insideSlop: return true
        case .outside, .inHole: return false
        }
    }
}

/// The box spanned by four points that form an axis-aligned rectangle, or nil.
private func axisAlignedRect(_ q: [Point]) -> Box? {
    let box = Box(covering: q)
    // Four distinct corners (a zero-area outline such as a line traced out
    // and back passes every other test below).
    guard box.width > 0, box.height > 0, Set(q).count == 4 else { return nil }
    for p in q where (p.x != box.minX && p.x != box.maxX) || (p.y != box.minY && p.y != box.maxY) { return nil }
    // Each edge must be horizontal or vertical.
    for k in 0..<4 {
        let a = q[k]
        let b = q[(k + 1) % 4]
        if a.x != b.x && a.y != b.y { return nil }
    }
    return box
}
