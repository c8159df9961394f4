/// The compiled region of a `mask` shape (SPEC §2.2), in the layer's local
/// coordinates (y-down): the union of the pixels whose alpha is at least
/// `minimumAlpha`, each pixel a half-open box, with the fill, stroke and
/// slop of SPEC §2.1–2.2.
///
/// Pixel of a point: column `⌊(p.x − x) · columns / width⌋`, row alike;
/// points with a column outside `0 ..< columns` (or row outside
/// `0 ..< rows`) are outside the mask. Its contours are the pixel edges
/// bounding the opaque set (the rectangle's edges included where opaque
/// pixels touch them), so:
///
/// - `stroke` > 0: with `fill`, a point is in the stroke band when it lies
///   within `stroke / 2` of an opaque pixel (the region is dilated by a
///   disk); without `fill`, when it lies within `stroke / 2` of the
///   boundary: outside, within that of an opaque pixel; inside an opaque
///   pixel, within that of a transparent pixel or of the rectangle's edge.
/// - slop: the slop box around the point (SPEC §2.1's Minkowski sum) meets
///   the fill or the band, decided by the same searches from the box.
///
/// Memory: the alpha plane (1 byte a pixel, shared with the scene model),
/// plus, only when a stroke or slop needs it, a summed-area table of opaque
/// pixels, 4 bytes per `(columns + 1) × (rows + 1)` entry.
///
/// Complexity: a fill test is O(1). "Does this box touch an opaque pixel"
/// is O(1) from the table; a stroke test (and slop with a stroke) scans
/// the rows or the columns within reach, whichever are fewer, asking the
/// table of each in O(1): O(min(rows, columns) in reach), at most
/// O(√pixels) for a square mask.
public final class MaskRegion: Sendable {
    public let x: Double
    public let y: Double
    public let width: Double
    public let height: Double
    public let columns: Int
    public let rows: Int
    /// Pixels per local unit across and down.
    let kx: Double
    let ky: Double
    /// Local units per pixel across and down.
    let pixelWidth: Double
    let pixelHeight: Double
    /// One byte a pixel, row-major, top row first.
    public let alpha: [UInt8]
    /// Pixels with at least this alpha are opaque (part of the fill).
    public let minimumAlpha: Int
    /// `sat[(j) · (columns + 1) + i]`: opaque pixels with column < i and
    /// row < j. Empty unless a stroke or slop needs it.
    let sat: [UInt32]
    /// The opaque pixels' box in pixel indexes (inclusive), or nil when none is opaque.
    public let opaquePixels: (minColumn: Int, minRow: Int, maxColumn: Int, maxRow: Int)?

    /// Compiles `mask`'s image; `needsTable` when a stroke or slop will ask boxes.
    /// - Complexity: O(pixels).
    init(_ mask: Mask, needsTable: Bool) {
        x = mask.x
        y = mask.y
        width = mask.width
        height = mask.height
        columns = mask.image.columns
        rows = mask.image.rows
        kx = Double(columns) / mask.width
        ky = Double(rows) / mask.height
        pixelWidth = mask.width / Double(columns)
        pixelHeight = mask.height / Double(rows)
        alpha = mask.image.alpha
        let minimum = Mask.minimumOpaqueAlpha(threshold: mask.effectiveThreshold)
        minimumAlpha = minimum
        var box: (Int, Int, Int, Int)?
        var table: [UInt32] = []
        let (c, r) = (columns, rows)
        if needsTable { table = [UInt32](repeating: 0, count: (c + 1) * (r + 1)) }
        alpha.withUnsafeBufferPointer { a in
            var minC = c
            var minR = r
            var maxC = -1
            var maxR = -1
            for j in 0..<r {
                var rowCount: UInt32 = 0
                for i in 0..<c {
                    let opaque = Int(a[j * c + i]) >= minimum
                    if opaque {
                        if i < minC { minC = i }
                        if i > maxC { maxC = i }
                        if j < minR { minR = j }
                        maxR = j
                        rowCount += 1
                    }
                    if needsTable { table[(j + 1) * (c + 1) + i + 1] = table[j * (c + 1) + i + 1] + rowCount }
                }
            }
            if maxC >= 0 { box = (minC, minR, maxC, maxR) }
        }
        sat = table
        opaquePixels = box.map { (minColumn: $0.0, minRow: $0.1, maxColumn: $0.2, maxRow: $0.3) }
    }

    /// The bytes this region holds beyond the shared alpha plane.
    public var tableBytes: Int { sat.count * MemoryLayout<UInt32>.stride }

    /// The local box of the opaque pixels, or empty.
    var outlineBounds: Box {
        guard let o = opaquePixels else { return .empty }
        return pixelBox(o.minColumn, o.minRow, o.maxColumn, o.maxRow)
    }

    /// The local box of pixels `c0...c1 × r0...r1`.
    @inline(__always)
    func pixelBox(_ c0: Int, _ r0: Int, _ c1: Int, _ r1: Int) -> Box {
        Box(
            minX: x + Double(c0) * pixelWidth, minY: y + Double(r0) * pixelHeight,
            maxX: x + Double(c1 + 1) * pixelWidth, maxY: y + Double(r1 + 1) * pixelHeight)
    }

    /// The column holding local `u`, clamped to `-1 ... columns` (−1 left
    /// of the mask, `columns` right of it; NaN counts as outside left).
    @inline(__always)
    func column(_ u: Double) -> Int {
        let f = ((u - x) * kx).rounded(.down)
        guard f >= 0 else { return -1 }
        return f < Double(columns) ? Int(f) : columns
    }

    @inline(__always)
    func row(_ v: Double) -> Int {
        let f = ((v - y) * ky).rounded(.down)
        guard f >= 0 else { return -1 }
        return f < Double(rows) ? Int(f) : rows
    }

    /// The pixel holding `p` (local), or nil outside the mask.
    public func pixel(at p: Point) -> (column: Int, row: Int)? {
        let i = column(p.x)
        let j = row(p.y)
        guard i >= 0, i < columns, j >= 0, j < rows else { return nil }
        return (i, j)
    }

    /// Whether the pixel holding `p` is opaque (false outside the mask).
    @inline(__always)
    func isOpaque(at p: Point) -> Bool {
        guard let (i, j) = pixel(at: p) else { return false }
        return Int(alpha[j * columns + i]) >= minimumAlpha
    }

    /// Opaque pixels among `c0...c1 × r0...r1` (indexes inside the image).
    @inline(__always)
    func opaqueCount(_ c0: Int, _ r0: Int, _ c1: Int, _ r1: Int) -> Int {
        let w = columns + 1
        return Int(sat[(r1 + 1) * w + c1 + 1]) - Int(sat[r0 * w + c1 + 1]) - Int(sat[(r1 + 1) * w + c0]) + Int(sat[r0 * w + c0])
    }

    /// Where `p` (local) falls, for a region that fills (`fill`), strokes
    /// `halfStroke` on each side of the boundary and grows by `slop`; adds
    /// the pixel lines a stroke or slop scans to `work` (`Walk.work`).
    func test(_ p: Point, fill: Bool, halfStroke: Double, slop: SlopEdges, work: inout Int) -> RegionTest {
        let opaque = isOpaque(at: p)
        if fill && opaque { return .inside }
        if halfStroke > 0 {
            let q = Box(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)
            if reaches(q, opaque: !opaque, within: halfStroke, work: &work) {
                return .insideStroke
            }
        }
        if !slop.isZero {
            // p lies in region ⊕ [-left, right] × [-top, bottom] iff the box
            // p − slop meets the region.
            let q = Box(minX: p.x - slop.right, minY: p.y - slop.bottom, maxX: p.x + slop.left, maxY: p.y + slop.top)
            if boxMeetsRegion(q, fill: fill, halfStroke: halfStroke, work: &work) { return .insideSlop }
        }
        return .outside
    }

    /// Whether the closed box `q` meets the fill (opaque pixels, with
    /// `fill`) or the stroke band; adds the lines it scans to `work`.
    func boxMeetsRegion(_ q: Box, fill: Bool, halfStroke: Double, work: inout Int) -> Bool {
        let touchesOpaque = touches(q, opaque: true)
        if fill {
            return touchesOpaque || (halfStroke > 0 && reaches(q, opaque: true, within: halfStroke, work: &work))
        }
        guard halfStroke > 0 else { return false }
        let touchesClear = touches(q, opaque: false)
        // A box holding both kinds holds boundary points; else it lies on one side of it.
        if touchesOpaque && touchesClear { return true }
        return reaches(q, opaque: !touchesOpaque, within: halfStroke, work: &work)
    }

    /// The pixel indexes the closed box `q` meets, clamped to the image,
    /// and whether `q` reaches outside the mask; nil when it meets no pixel.
    @inline(__always)
    private func pixelRange(_ q: Box) -> (c0: Int, r0: Int, c1: Int, r1: Int, beyond: Bool)? {
        let c0 = column(q.minX)
        let c1 = column(q.maxX)
        let r0 = row(q.minY)
        let r1 = row(q.maxY)
        let beyond = c0 < 0 || r0 < 0 || c1 >= columns || r1 >= rows || !(q.maxX < x + width) || !(q.maxY < y + height)
        guard c1 >= 0, r1 >= 0, c0 < columns, r0 < rows else { return nil }
        return (max(c0, 0), max(r0, 0), min(c1, columns - 1), min(r1, rows - 1), beyond)
    }

    /// Whether the closed box `q` meets a pixel of the kind (`opaque`, or
    /// transparent: a transparent pixel or anything outside the mask).
    func touches(_ q: Box, opaque: Bool) -> Bool {
        guard let r = pixelRange(q) else { return !opaque }
        if !opaque && r.beyond { return true }
        let count = opaqueCount(r.c0, r.r0, r.c1, r.r1)
        return opaque ? count > 0 : count < (r.c1 - r.c0 + 1) * (r.r1 - r.r0 + 1)
    }

    /// Whether some point of the kind (`opaque` pixels; or transparent
    /// pixels and the outside of the mask) lies within `d` of the closed
    /// box `q` (Euclidean). Adds the rows or columns it scans to `work`.
    func reaches(_ q: Box, opaque: Bool, within d: Double, work: inout Int) -> Bool {
        if !opaque {
            // The outside of the mask: its distance from q, whose inside part is a box.
            let inside = Box(minX: max(q.minX, x), minY: max(q.minY, y), maxX: min(q.maxX, x + width), maxY: min(q.maxY, y + height))
            if inside.isEmpty || inside != q { return true }  // q reaches outside already
            let edge = min(q.minX - x, q.minY - y, x + width - q.maxX, y + height - q.maxY)
            if edge <= d { return true }
        }
        let reach = Box(minX: q.minX - d, minY: q.minY - d, maxX: q.maxX + d, maxY: q.maxY + d)
        guard let r = pixelRange(reach) else { return false }
        // Scan whichever lines are fewer: rows, or columns.
        work &+= 1 &+ min(r.r1 - r.r0, r.c1 - r.c0)
        return r.r1 - r.r0 <= r.c1 - r.c0
            ? scanRows(q, opaque: opaque, within: d, r.r0, r.r1)
            : scanColumns(q, opaque: opaque, within: d, r.c0, r.c1)
    }

    /// Whether a pixel of the kind in rows `r0...r1` lies within `d` of `q`:
    /// in each row, the pixels within `d` are those within `√(d² − dy²)`
    /// across, `dy` the row's distance from `q` down (pixels as closed
    /// boxes): a run the table counts in O(1).
    /// - Complexity: O(rows scanned).
    private func scanRows(_ q: Box, opaque: Bool, within d: Double, _ r0: Int, _ r1: Int) -> Bool {
        for j in r0...r1 {
            let top = y + Double(j) * pixelHeight
            let bottom = y + Double(j + 1) * pixelHeight
            let dy = max(top - q.maxY, q.minY - bottom, 0)
            guard dy <= d else { continue }
            let w = (d * d - dy * dy).squareRoot()
            let a = q.minX - w
            let b = q.maxX + w
            var c0 = column(a)
            // The pixel that ends exactly at `a` is within reach too.
            if c0 > 0 && c0 <= columns && x + Double(c0) * pixelWidth >= a { c0 -= 1 }
            let lo = max(c0, 0)
            let hi = min(column(b), columns - 1)
            guard lo <= hi else { continue }
            let count = opaqueCount(lo, j, hi, j)
            if opaque ? count > 0 : count < hi - lo + 1 { return true }
        }
        return false
    }

    /// `scanRows` with the axes exchanged.
    private func scanColumns(_ q: Box, opaque: Bool, within d: Double, _ c0: Int, _ c1: Int) -> Bool {
        for i in c0...c1 {
            let left = x + Double(i) * pixelWidth
            let right = x + Double(i + 1) * pixelWidth
            let dx = max(left - q.maxX, q.minX - right, 0)
            guard dx <= d else { continue }
            let h = (d * d - dx * dx).squareRoot()
            let a = q.minY - h
            let b = q.maxY + h
            var r0 = row(a)
            if r0 > 0 && r0 <= rows && y + Double(r0) * pixelHeight >= a { r0 -= 1 }
            let lo = max(r0, 0)
            let hi = min(row(b), rows - 1)
            guard lo <= hi else { continue }
            let count = opaqueCount(i, lo, i, hi)
            if opaque ? count > 0 : count < hi - lo + 1 { return true }
        }
        return false
    }
}
