/// A uniform grid over many siblings of similar size, in their parent's
/// coordinates: the point's cell lists, front to back, the siblings whose
/// boxes overlap it. Used by `SiblingIndex` when it fits (see `make`);
/// O(1 + siblings in the cell) per query, reading one contiguous run.
///
/// An entry names its sibling's layer itself, not its visiting rank: a
/// query goes from the entry straight to the layer's cover and node,
/// without a lookup in the sibling list (one cache miss less per
/// candidate in a big scene). Within a cell the entries stay in rank order.
///
/// Positions are fixed-point: `q(v) = ⌊(v − origin) · 256 / cellSize⌋`, so
/// a cell is 256 × 256 steps and each entry carries, beside the sibling's
/// layer, the part of the cell its box covers in those steps. `q` is
/// monotonic, so a point inside a box always lands inside the box's steps:
/// the entries are conservative without reading the boxes themselves.
///
/// Siblings too large for the grid, and siblings moved since it was
/// built, are kept in `loose` (by rank) and checked against their exact
/// boxes; a rebuild folds them back in.
struct SiblingGrid: Sendable {
    /// One sibling in one cell: its layer and the steps of the cell its box
    /// covers (both ends included; 0...255 is the whole cell).
    struct Entry: Sendable {
        var layer: Int32
        var minX: UInt8
        var minY: UInt8
        var maxX: UInt8
        var maxY: UInt8

        /// Covers nothing: what a moved sibling's old entries become.
        static func vacated(_ layer: Int32) -> Entry { Entry(layer: layer, minX: 255, minY: 255, maxX: 0, maxY: 0) }
    }

    let origin: Point
    /// Fixed-point steps per unit: 256 / cell size.
    let scale: Double
    let columns: Int
    let rows: Int
    /// Cell `c`'s entries are `entries[cellStart[c] ..< cellStart[c + 1]]`, by rank.
    private(set) var cellStart: [Int32]
    private(set) var entries: [Entry]
    /// Ranks checked on every query against their exact boxes, ascending:
    /// oversized or moved siblings.
    private(set) var loose: [Int32] = []

    /// A sibling covering more cells than this goes to `loose`.
    static let maxCellsPerItem = 16
    /// Past this many `loose` siblings the grid is not worth it.
    static let maxLoose = 32

    /// No grid (zero columns): what a tree-shaped `SiblingIndex` holds.
    static let none = SiblingGrid()

    private init() {
        origin = .zero
        scale = 1
        columns = 0
        rows = 0
        cellStart = []
        entries = []
    }

    /// A grid for `boxes` of the siblings `layers` (both indexed by rank),
    /// or nil when they do not suit one (too few, too spread in size).
    static func make(_ boxes: [Box], layers: [Int32]) -> SiblingGrid? {
        var extent = Box.empty
        var sizes: [Double] = []
        sizes.reserveCapacity(boxes.count)
        for b in boxes where !b.isEmpty {
            extent.formUnion(b)
            sizes.append(max(b.width, b.height))
        }
        guard sizes.count >= 64, extent.width > 0 || extent.height > 0 else { return nil }
        // Cells about the size of a typical sibling, and not more than ~4 per sibling.
        sizes.sort()
        var cell = max(sizes[sizes.count / 2], 1e-9)
        let area = max(extent.width, cell) * max(extent.height, cell)
        cell = max(cell, (area / Double(4 * sizes.count)).squareRoot())
        let scale = 256 / cell
        guard scale.isFinite, scale > 0 else { return nil }
        let origin = Point(extent.minX, extent.minY)
        // From the steps of the far corner itself, so that every box's steps fall in the grid.
        let far = ((extent.maxX - origin.x) * scale, (extent.maxY - origin.y) * scale)
        guard far.0.isFinite, far.1.isFinite, far.0 < 1e15, far.1 < 1e15 else { return nil }
        let columns = Int(far.0) >> 8 + 1
        let rows = Int(far.1) >> 8 + 1
        let (cells, overflow) = columns.multipliedReportingOverflow(by: rows)
        guard !overflow, cells <= 8 * sizes.count + 64 else { return nil }
        let grid = SiblingGrid(origin: origin, scale: scale, columns: columns, rows: rows, boxes: boxes, layers: layers)
        return grid.loose.count <= maxLoose ? grid : nil
    }

    private init(origin: Point, scale: Double, columns: Int, rows: Int, boxes: [Box], layers: [Int32]) {
        self.origin = origin
        self.scale = scale
        self.columns = columns
        self.rows = rows
        cellStart = []
        entries = []
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        var placed: [(layer: Int32, steps: Steps)] = []
        placed.reserveCapacity(boxes.count)
        for (rank, b) in boxes.enumerated() where !b.isEmpty {
            let s = steps(of: b)
            if s.cellCount > SiblingGrid.maxCellsPerItem {
                loose.append(Int32(rank))
                continue
            }
            placed.append((layers[rank], s))
            s.forEachCell(columns) { cell, _ in counts[cell + 1] += 1 }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var entries = [Entry](repeating: .vacated(0), count: Int(counts[counts.count - 1]))
        for (layer, s) in placed {  // by rank, so each cell lists its siblings front to back
            s.forEachCell(columns) { cell, entry in
                entries[Int(fill[cell])] = Entry(layer: layer, minX: entry.minX, minY: entry.minY, maxX: entry.maxX, maxY: entry.maxY)
                fill[cell] += 1
            }
        }
        cellStart = counts
        self.entries = entries
    }

    /// A box in fixed-point steps, clamped to the grid.
    private struct Steps {
        var x0: Int, y0: Int, x1: Int, y1: Int

        var cellCount: Int { (x1 >> 8 - x0 >> 8 + 1) * (y1 >> 8 - y0 >> 8 + 1) }

        /// Calls `body` with each cell the box overlaps and the part of it covered.
        func forEachCell(_ columns: Int, _ body: (Int, Entry) -> Void) {
            for cy in y0 >> 8...y1 >> 8 {
                let minY = cy == y0 >> 8 ? UInt8(y0 & 255) : 0
                let maxY = cy == y1 >> 8 ? UInt8(y1 & 255) : 255
                for cx in x0 >> 8...x1 >> 8 {
                    let minX = cx == x0 >> 8 ? UInt8(x0 & 255) : 0
                    let maxX = cx == x1 >> 8 ? UInt8(x1 & 255) : 255
                    body(cy * columns + cx, Entry(layer: 0, minX: minX, minY: minY, maxX: maxX, maxY: maxY))
                }
            }
        }
    }

    /// The steps of a box inside the grid's extent.
    private func steps(of b: Box) -> Steps {
        func q(_ v: Double, _ o: Double, _ limit: Int) -> Int {
            // NaN and below 0 give 0, beyond the grid `limit`: `Int(f)` only on 0 < f < limit.
            let f = (v - o) * scale
            return f > 0 ? (f < Double(limit) ? Int(f) : limit) : 0
        }
        return Steps(
            x0: q(b.minX, origin.x, columns * 256 - 1), y0: q(b.minY, origin.y, rows * 256 - 1),
            x1: q(b.maxX, origin.x, columns * 256 - 1), y1: q(b.maxY, origin.y, rows * 256 - 1))
    }

    /// Where this grid's arrays are, with `boxes` (the siblings' current
    /// boxes by rank, for `loose`), for queries that read them in place.
    /// Valid until the grid or `boxes` change or are freed.
    func view(boxes: UnsafeBufferPointer<Box>) -> View {
        View(
            origin: origin, scale: scale, columns: columns, rows: rows,
            cellStart: cellStart.withUnsafeBufferPointer { $0 }, entries: entries.withUnsafeBufferPointer { $0 },
            loose: loose.withUnsafeBufferPointer { $0 }, boxes: boxes)
    }

    /// A grid's fields and the addresses of its arrays: a plain value, so
    /// that a query retains nothing (see `SiblingIndex.gridView`).
    struct View {
        let origin: Point
        let scale: Double
        let columns: Int
        let rows: Int
        let cellStart: UnsafeBufferPointer<Int32>
        let entries: UnsafeBufferPointer<Entry>
        let loose: UnsafeBufferPointer<Int32>
        let boxes: UnsafeBufferPointer<Box>

        /// The cell holding `p` and `p`'s steps inside it, or nil when `p`
        /// is outside the grid (then only `loose` siblings can hold it).
        @inline(__always)
        func locate(_ p: Point) -> (cell: Int, sx: UInt8, sy: UInt8)? {
            let fx = (p.x - origin.x) * scale
            let fy = (p.y - origin.y) * scale
            guard fx >= 0 && fy >= 0 && fx < Double(columns * 256) && fy < Double(rows * 256) else { return nil }
            let qx = Int(fx)
            let qy = Int(fy)  // 0 ≤ f < cells · 256 ≤ 2^40 by the guard: no trap
            return ((qy >> 8) * columns + qx >> 8, UInt8(qx & 255), UInt8(qy & 255))
        }

        /// The first entry at or after `i` and before `end` whose steps hold
        /// (`sx`, `sy`), or `end`.
        @inline(__always)
        func firstEntry(from i: Int, to end: Int, _ sx: UInt8, _ sy: UInt8) -> Int {
            var i = i
            while i < end {
                let e = entries[i]
                if e.minX <= sx && sx <= e.maxX && e.minY <= sy && sy <= e.maxY { return i }
                i &+= 1
            }
            return end
        }

        /// Calls `body` with the layer of each sibling whose box might
        /// contain `p`, front to back, until it returns true.
        /// - Parameters:
        ///   - siblings: the siblings' layers by rank (`loose` holds ranks).
        ///   - rank: a layer's rank; asked only while some siblings are
        ///     `loose`, to merge them with the cell's entries.
        ///   - work: adds 1 per entry and loose sibling read (`Walk.work`).
        /// - Returns: whether `body` returned true.
        @inline(__always)
        func first(
            containing p: Point, siblings: UnsafeBufferPointer<Int32>, rank: (Int32) -> Int32,
            work: inout Int, where body: (Int32) -> Bool
        ) -> Bool {
            var cursor = Cursor(self, p, at: locate(p))
            while true {
                let layer = cursor.next(self, p, siblings: siblings, rank: rank, work: &work)
                if layer < 0 { return false }
                if body(layer) { return true }
            }
        }

        /// The siblings whose boxes might contain one point, front to
        /// back, one at a time: the entries of the point's cell merged with
        /// the `loose` siblings that hold it. `first(containing:)` takes
        /// them in one go; a batch keeps many cursors and takes a step of
        /// each in turn (`CompiledScene.targets(at:into:)`).
        struct Cursor {
            /// The next entry of the cell to look at, and the cell's end.
            private var i: Int
            private let end: Int
            /// The point's steps in its cell.
            private let sx: UInt8
            private let sy: UInt8
            /// With loose siblings: the next entry's layer (-1 past the
            /// last) and rank (`Int32.max` past the last, -1 before the
            /// first step), the next loose rank holding the point
            /// (`Int32.max` past the last), and where the next loose rank
            /// to check is.
            private var entry: Int32 = -1
            private var entryRank: Int32 = -1
            private var looseRank: Int32 = -1
            private var j = 0

            /// At the start of the cell `spot` (`grid.locate(p)`): reads
            /// the cell's bounds. Without a cell, only loose siblings can
            /// hold the point.
            @inline(__always)
            init(_ grid: View, _ p: Point, at spot: (cell: Int, sx: UInt8, sy: UInt8)?) {
                guard let spot else {
                    (i, end, sx, sy) = (0, 0, 0, 0)
                    return
                }
                i = Int(grid.cellStart[spot.cell])
                end = Int(grid.cellStart[spot.cell &+ 1])
                sx = spot.sx
                sy = spot.sy
            }

            /// Where the next entry of the cell is read from (for a memory request).
            var nextEntry: Int { i }

            /// The next sibling's layer, or -1 when there is none. `p`,
            /// `siblings`, `rank` and `work` as for `first(containing:)`,
            /// the same at every step.
            @inline(__always)
            mutating func next(
                _ grid: View, _ p: Point, siblings: UnsafeBufferPointer<Int32>, rank: (Int32) -> Int32,
                work: inout Int
            ) -> Int32 {
                guard !grid.loose.isEmpty else { return nextInCell(grid, work: &work) }
                // Merge the cell's entries and the loose ranks, both ascending.
                if entryRank < 0 {
                    entry = nextInCell(grid, work: &work)
                    entryRank = entry < 0 ? .max : rank(entry)
                    looseRank = nextLoose(grid, p, work: &work)
                }
                if entryRank == .max && looseRank == .max { return -1 }
                if entryRank < looseRank {
                    let layer = entry
                    entry = nextInCell(grid, work: &work)
                    entryRank = entry < 0 ? .max : rank(entry)
                    return layer
                }
                let layer = siblings[Int(looseRank)]
                looseRank = nextLoose(grid, p, work: &work)
                return layer
            }

            /// The next entry's layer, or -1; adds the entries read to `work`.
            @inline(__always)
            private mutating func nextInCell(_ grid: View, work: inout Int) -> Int32 {
                let from = i
                i = grid.firstEntry(from: i, to: end, sx, sy)
                defer { work &+= i &- from }
                guard i < end else { return -1 }
                i &+= 1
                return grid.entries[i &- 1].layer
            }

            /// The next loose rank whose box holds `p`, or `Int32.max`;
            /// adds the loose siblings read to `work`.
            private mutating func nextLoose(_ grid: View, _ p: Point, work: inout Int) -> Int32 {
                while j < grid.loose.count {
                    let rank = grid.loose[j]
                    j &+= 1
                    work &+= 1
                    if grid.boxes[Int(rank)].contains(p) { return rank }
                }
                return .max
            }
        }
    }

    /// Notes that sibling `rank` (layer `layer`), whose box was `old`,
    /// moved: its entries are vacated and it is checked loosely from now on.
    /// - Returns: false when the grid has too many loose siblings and
    ///   should be rebuilt.
    mutating func noteMoved(_ rank: Int, layer: Int32, from old: Box) -> Bool {
        let r = Int32(rank)
        guard !loose.contains(r) else { return true }
        if !old.isEmpty {
            let columns = self.columns
            steps(of: old).forEachCell(columns) { cell, _ in
                for i in Int(cellStart[cell])..<Int(cellStart[cell + 1]) where entries[i].layer == layer {
                    entries[i] = .vacated(layer)
                }
            }
        }
        loose.insert(r, at: loose.firstIndex { $0 > r } ?? loose.count)
        return loose.count <= 2 * SiblingGrid.maxLoose
    }

    #if DEBUG
        /// Whether sibling `rank` (layer `layer`) is loose or has a live entry in some cell.
        func lists(_ rank: Int32, layer: Int32) -> Bool {
            loose.contains(rank) || entries.contains { $0.layer == layer && $0.minX <= $0.maxX }
        }
    #endif
}
