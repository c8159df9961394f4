/// Which parts of a layer's box its region covers, so that an indexed
/// query can pass over the layer, or accept it, without reading its
/// vertices.
///
/// The box is the layer's reach in its parent's coordinates, cut into
/// 8 × 8 parts: a point's column is `⌊(x − minX) · kx⌋` with
/// `kx = 8 / width`, its row alike. A part the outline does not enter is
/// wholly inside or wholly outside the region; `maybe` and `filled` say
/// which. Built for plain leaves (one filled polygon, no stroke or slop, no
/// children, not skipped) when their region is built, while its vertices
/// are in cache; other layers have `none`, which sends every point to the
/// full visit. So do leaves whose inverse transform could overflow
/// somewhere in the box (a point whose local image is not finite is inside
/// nothing, SPEC §1, so no part holding one is filled), and leaves whose
/// rounding between the two maps could reach a quarter of a part.
struct SiblingCover: Sendable {
    var minX: Double
    var minY: Double
    /// Parts per unit: 8 / the box's width (height); 0 for `none`.
    var kx: Double
    var ky: Double
    /// Bit `8 · row + column`: the part might hold points of the region.
    var maybe: UInt64
    /// Bit `8 · row + column`: every point of the part is in the region.
    var filled: UInt64

    /// No cover: every point may be in the region, none is known to be.
    static let none = SiblingCover(minX: 0, minY: 0, kx: 0, ky: 0, maybe: 1, filled: 0)

    /// The bit of the part holding `p` (parent coordinates), or 0 when `p`
    /// is outside the box (and so outside the region).
    @inline(__always)
    func bit(_ p: Point) -> UInt64 {
        let u = (p.x - minX) * kx
        let v = (p.y - minY) * ky
        guard u >= 0, v >= 0, u <= 8, v <= 8 else { return 0 }
        return 1 &<< UInt64(Int(min(v, 7)) &* 8 &+ Int(min(u, 7)))  // 0 ≤ u, v ≤ 8 here (NaN fails the guard)
    }

    /// The cover of a plain polygon leaf whose reach in its parent is `box`.
    ///
    /// - Parameters:
    ///   - polygon: the region's vertices, local coordinates.
    ///   - toParent, toLocal: the layer's transform and its inverse.
    ///   - box: the region's bounds in the parent, grown by `rounding`,
    ///     as the sibling index has them (`CompiledScene.reachInParent`).
    ///   - rounding: `toParent.roundingReach` over the region's bounds, in
    ///     parent units per axis.
    /// - Complexity: O(vertices) plus one point test per group of enclosed
    ///   parts (usually one).
    static func plainPolygon(
        _ polygon: UnsafeBufferPointer<Point>, fillRule: FillRule, toParent: Affine, toLocal: Affine, box: Box,
        rounding: (x: Double, y: Double)
    ) -> SiblingCover {
        // Parts far smaller than the coordinates' rounding are not worth it.
        let magnitude = max(abs(box.minX), abs(box.minY), abs(box.maxX), abs(box.maxY))
        guard polygon.count >= 3, box.width > 1e-6 * magnitude, box.height > 1e-6 * magnitude,
            box.width.isFinite, box.height.isFinite, toLocal.appliesFinitely(within: box)
        else { return .none }
        var cover = SiblingCover(minX: box.minX, minY: box.minY, kx: 8 / box.width, ky: 8 / box.height, maybe: 0, filled: 0)
        // Parts an edge's box enters hold the outline. Positions are taken
        // with `bit`'s own arithmetic (monotonic, so a point of the edge
        // lies between its ends), widened by a millionth of a part, or by
        // twice the rounding between local and parent coordinates where
        // that is more, so that a part the outline misses is as far from
        // it in the visit's arithmetic as in exact arithmetic.
        let slackU = max(1e-6, 2 * rounding.x * cover.kx)
        let slackV = max(1e-6, 2 * rounding.y * cover.ky)
        guard cover.kx.isFinite, cover.ky.isFinite, slackU < 0.25, slackV < 0.25 else { return .none }
        func clamp(_ v: Double) -> Int { Int(max(0, min(7, v))) }  // `min(7, NaN)` is 7: always 0...7
        var outline: UInt64 = 0
        let last = toParent.apply(polygon[polygon.count - 1])
        var (au, av) = ((last.x - cover.minX) * cover.kx, (last.y - cover.minY) * cover.ky)
        for vertex in polygon {
            let b = toParent.apply(vertex)
            let (bu, bv) = ((b.x - cover.minX) * cover.kx, (b.y - cover.minY) * cover.ky)
            let c0 = clamp(min(au, bu) - slackU)
            let c1 = clamp(max(au, bu) + slackU)
            let r0 = clamp(min(av, bv) - slackV)
            let r1 = clamp(max(av, bv) + slackV)
            // Columns c0...c1 of row 0, copied to rows r0...r1 by one
            // multiplication (a byte times byte-spaced ones never carries).
            let columns = (UInt64(0xFF) &>> UInt64(7 &- (c1 &- c0))) &<< UInt64(c0)
            let rows = (0x0101_0101_0101_0101 as UInt64 &>> UInt64(8 &* (7 &- (r1 &- r0)))) &<< UInt64(8 &* r0)
            outline |= columns &* rows
            (au, av) = (bu, bv)
        }
        // Parts the outline misses are wholly in or out. Those joined to the
        // box's border are out: the border lies outside the region or on its
        // outline, and the outline is not in them.
        let open = ~outline
        let border: UInt64 = 0xFF00_0000_0000_00FF | 0x8181_8181_8181_8181
        var enclosed = open & ~flood(open & border, within: open)
        cover.maybe = outline
        // Each group of enclosed parts is all in or all out: test one point.
        while enclosed != 0 {
            let seed = enclosed & (~enclosed &+ 1)
            let group = flood(seed, within: enclosed)
            enclosed &= ~group
            let k = seed.trailingZeroBitCount
            let probe = Point(cover.minX + (Double(k % 8) + 0.5) / cover.kx, cover.minY + (Double(k / 8) + 0.5) / cover.ky)
            if fillRule.plainTest(polygon, toLocal.apply(probe)).isHit {
                cover.maybe |= group
                cover.filled |= group
            }
        }
        return cover
    }

    /// The parts reachable from `seed` through `within` (8 × 8 bitboard,
    /// edge-adjacent parts).
    static func flood(_ seed: UInt64, within: UInt64) -> UInt64 {
        var reached = seed & within
        while true {
            let grown =
                (reached | (reached << 1) & ~0x0101_0101_0101_0101 | (reached >> 1) & ~0x8080_8080_8080_8080
                    | reached << 8 | reached >> 8) & within
            if grown == reached { return reached }
            reached = grown
        }
    }
}
