/// Many points routed in the order of the root grid's cells (row by row)
/// rather than as given: points in one cell, or in cells next to each
/// other, read the same entries and often the same layers, which the
/// first of them brought into cache. Fewer points than a quarter of the
/// cells share too little to pay for the sort (`minimumPoints`); the
/// figures behind that bound are in Benchmarks/README.md.
///
/// A counting sort by cell (cells merged in runs of 2 or 4 so that there
/// are no more buckets than points): O(points + cells), two passes.
enum GridOrder {
    /// The fewest points routed in grid order: a quarter of the cells
    /// (and at least 2,048).
    static func minimumPoints(_ grid: SiblingGrid.View) -> Int { max(2048, grid.columns * grid.rows / 4) }

    /// Calls `route` with `points` in grid order and a buffer for their
    /// answers, then puts each answer in `answers` at its point's place.
    static func apply(
        _ grid: SiblingGrid.View, _ points: UnsafeBufferPointer<Point>,
        _ answers: UnsafeMutableBufferPointer<Int32>,
        route: (UnsafeBufferPointer<Point>, UnsafeMutableBufferPointer<Int32>) -> Void
    ) {
        let n = points.count
        let cells = grid.columns * grid.rows
        var shift = 0
        while cells >> shift > n { shift += 1 }
        let buckets = cells >> shift + 2  // the last one for points outside the grid
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * n) { scratch in
            let keys = UnsafeMutableBufferPointer(rebasing: scratch[..<n])
            let places = UnsafeMutableBufferPointer(rebasing: scratch[n...])
            withUnsafeTemporaryAllocation(of: Point.self, capacity: n) { sorted in
                var starts = [Int32](repeating: 0, count: buckets + 1)
                for (i, p) in points.enumerated() {
                    let key = grid.locate(p).map { $0.cell >> shift } ?? buckets - 1
                    keys[i] = Int32(key)
                    starts[key + 1] += 1
                }
                for b in 1...buckets { starts[b] += starts[b - 1] }
                for (i, p) in points.enumerated() {
                    let at = Int(starts[Int(keys[i])])
                    starts[Int(keys[i])] += 1
                    sorted[at] = p
                    places[at] = Int32(i)
                }
                route(UnsafeBufferPointer(sorted), keys)  // `keys` now takes the answers
                for (k, i) in places.enumerated() { answers[Int(i)] = keys[k] }
            }
        }
    }
}
