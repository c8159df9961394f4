/// A uniform grid over many siblings of similar size, in their parent's
/// coordinates: the point's cell lists the siblings whose boxes overlap it.
/// Used by `SiblingIndex` when it fits (see `make`); O(1) per query.
///
/// Frozen into flat arrays (`cellStart`, `cellItems`, CSR layout). Siblings
/// too large for the grid, and siblings moved since it was built, are kept
/// in `loose` and checked on every query; a rebuild folds them back in.
struct SiblingGrid: Sendable {
    let origin: Point
    let cellSize: Double
    let columns: Int
    let rows: Int
    private(set) var cellStart: [Int32]
    private(set) var cellItems: [Int32]
    /// Ranks checked on every query: oversized or moved siblings.
    private(set) var loose: [Int32] = []
    /// Ranks whose cells in `cellItems` are stale (moved since the build).
    private(set) var moved: [Bool]

    /// No grid (zero columns): what a tree-shaped `SiblingIndex` holds.
    static let none = SiblingGrid()

    private init() {
        origin = .zero
        cellSize = 1
        columns = 0
        rows = 0
        cellStart = []
        cellItems = []
        moved = []
    }

    /// A sibling covering more cells than this goes to `loose`.
    static let maxCellsPerItem = 16
    /// Past this many `loose` siblings the grid is not worth it.
    static let maxLoose = 32

    /// A grid for `boxes`, or nil when they do not suit one (too few, too
    /// spread in size).
    static func make(_ boxes: [Box]) -> SiblingGrid? {
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
        let columns = Int((extent.width / cell).rounded(.down)) + 1
        let rows = Int((extent.height / cell).rounded(.down)) + 1
        guard columns.multipliedReportingOverflow(by: rows).partialValue <= 8 * sizes.count + 64 else { return nil }
        var grid = SiblingGrid(origin: Point(extent.minX, extent.minY), cellSize: cell, columns: columns, rows: rows, boxes: boxes)
        guard grid.loose.count <= maxLoose else { return nil }
        grid.loose.sort()
        return grid
    }

    private init(origin: Point, cellSize: Double, columns: Int, rows: Int, boxes: [Box]) {
        self.origin = origin
        self.cellSize = cellSize
        self.columns = columns
        self.rows = rows
        moved = Array(repeating: false, count: boxes.count)
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        var placed: [(rank: Int32, cells: (Int, Int, Int, Int))] = []
        placed.reserveCapacity(boxes.count)
        var loose: [Int32] = []
        for (rank, b) in boxes.enumerated() where !b.isEmpty {
            let c = SiblingGrid.cellRange(b, origin: origin, cellSize: cellSize, columns: columns, rows: rows)
            if (c.2 - c.0 + 1) * (c.3 - c.1 + 1) > SiblingGrid.maxCellsPerItem {
                loose.append(Int32(rank))
                continue
            }
            placed.append((Int32(rank), c))
            for y in c.1...c.3 { for x in c.0...c.2 { counts[y * columns + x + 1] += 1 } }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var items = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for (rank, c) in placed {
            for y in c.1...c.3 {
                for x in c.0...c.2 {
                    items[Int(fill[y * columns + x])] = rank
                    fill[y * columns + x] += 1
                }
            }
        }
        cellStart = counts
        cellItems = items
        self.loose = loose
    }

    /// Columns and rows `(x0, y0, x1, y1)` a box overlaps, clamped to the grid.
    private static func cellRange(_ b: Box, origin: Point, cellSize: Double, columns: Int, rows: Int) -> (Int, Int, Int, Int) {
        func index(_ v: Double, _ o: Double, _ n: Int) -> Int {
            let i = ((v - o) / cellSize).rounded(.down)
            return i < 0 ? 0 : (i >= Double(n) ? n - 1 : Int(i))
        }
        return (index(b.minX, origin.x, columns), index(b.minY, origin.y, rows),
                index(b.maxX, origin.x, columns), index(b.maxY, origin.y, rows))
    }

    /// Appends the ranks whose boxes (`boxes`, current) contain `p`.
    func candidates(containing p: Point, boxes: UnsafeBufferPointer<Box>, into out: inout [Int32]) {
        for rank in loose where boxes[Int(rank)].contains(p) { out.append(rank) }
        let fx = ((p.x - origin.x) / cellSize).rounded(.down), fy = ((p.y - origin.y) / cellSize).rounded(.down)
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return }
        let cell = Int(fy) * columns + Int(fx)
        cellItems.withUnsafeBufferPointer { items in
            cellStart.withUnsafeBufferPointer { start in
                moved.withUnsafeBufferPointer { moved in
                    for i in Int(start[cell])..<Int(start[cell + 1]) {
                        let rank = items[i]
                        if !moved[Int(rank)] && boxes[Int(rank)].contains(p) { out.append(rank) }
                    }
                }
            }
        }
    }

    /// Notes that sibling `rank` moved: it is checked loosely from now on.
    /// - Returns: false when the grid has too many loose siblings and
    ///   should be rebuilt.
    mutating func noteMoved(_ rank: Int) -> Bool {
        if !moved[rank] {
            moved[rank] = true
            if !loose.contains(Int32(rank)) { loose.append(Int32(rank)) }
        }
        return loose.count <= 2 * SiblingGrid.maxLoose
    }
}
