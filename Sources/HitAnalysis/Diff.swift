import HitRouting

/// The answer of `GET /scenes/{id}/diff?against={otherId}` (SPEC §12.3).
public struct DiffReport: Sendable {
    /// Samples whose routed layer or action goes from `from` to `to`
    /// (layer indexes in their own scenes; nil: no target).
    public struct Group: Sendable, Equatable {
        public var from: Int?
        public var to: Int?
        public var cells: Int
        public var area: Double
        public var box: CellBox
        public var point: Point
    }

    public var grid: SampleGrid
    public var groups: [Group]
    public var changedCells: Int
    public var changed: Double
    public var work: Int
    /// With `keepCells`: per sample (row-major) the index in `groups` of
    /// its group, or -1 where nothing changed.
    public var cellGroups: [Int32]?
}

/// SPEC §12.3: where routing differs between two scenes.
public enum Diff {
    /// The region a diff covers by default: the union of both scenes' bounds.
    public static func defaultRegion(_ a: CompiledScene, _ b: CompiledScene) -> Box? {
        var box = a.bounds ?? .empty
        if let other = b.bounds { box.formUnion(other) }
        return box.isEmpty ? nil : box
    }

    /// The samples of `grid` whose routed layer id or action differs from
    /// `a` to `b`, grouped by (from, to) in a hash table, largest first
    /// (ties: the group whose first sample comes first in row-major order).
    /// - Complexity: O(samples · routing in each scene + layers); memory
    ///   8 bytes a sample (both answers) plus O(groups).
    public static func run(
        _ a: CompiledScene, _ b: CompiledScene, grid: SampleGrid, workLimit: Int, keepCells: Bool = false
    ) throws(AnalysisError) -> DiffReport {
        var work = 0
        let ra = try GridRouting.route(a, grid, work: &work, workLimit: workLimit)
        let rb = try GridRouting.route(b, grid, work: &work, workLimit: workLimit)
        // Per layer of `a`: the layer of `b` that answers the same (same id
        // and same action), or -2.
        var same = [Int32](repeating: -2, count: a.layerCount)
        for n in 0..<a.layerCount {
            guard let m = b.indexByID[a.ids[n]] else { continue }
            if a.action(for: n)?.action == b.action(for: Int(m))?.action { same[n] = m }
        }
        struct Group {
            var cells = 0, first = 0, minI = Int.max, minJ = 0, maxI = -1, maxJ = 0
        }
        var groups: [UInt64: Group] = [:]
        var changed = 0
        let columns = grid.columns
        for s in 0..<ra.count {
            let x = ra[s]
            let y = rb[s]
            if x < 0 ? y < 0 : same[Int(x)] == y { continue }
            changed += 1
            let key = UInt64(UInt32(bitPattern: x)) << 32 | UInt64(UInt32(bitPattern: y))
            let j = s / columns
            let i = s - j * columns
            var g = groups[key] ?? Group(cells: 0, first: s, minI: i, minJ: j, maxI: i, maxJ: j)
            g.cells += 1
            g.minI = min(g.minI, i)
            g.maxI = max(g.maxI, i)
            g.maxJ = j
            groups[key] = g
        }
        let sorted = groups.sorted { $0.value.cells != $1.value.cells ? $0.value.cells > $1.value.cells : $0.value.first < $1.value.first }
        var cellGroups: [Int32]?
        if keepCells {
            var place: [UInt64: Int32] = [:]
            for (k, g) in sorted.enumerated() { place[g.key] = Int32(k) }
            cellGroups = (0..<ra.count).map { s in
                let key = UInt64(UInt32(bitPattern: ra[s])) << 32 | UInt64(UInt32(bitPattern: rb[s]))
                return place[key] ?? -1
            }
        }
        let out = sorted.map { entry -> DiffReport.Group in
            let g = entry.value
            let from = Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key >> 32))
            let to = Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key))
            let b = grid.cellBox(g.minI, g.minJ, g.maxI, g.maxJ)
            return DiffReport.Group(
                from: from >= 0 ? Int(from) : nil, to: to >= 0 ? Int(to) : nil, cells: g.cells, area: grid.area(g.cells),
                box: CellBox(x: b.x, y: b.y, width: b.width, height: b.height), point: grid.sample(g.first))
        }
        return DiffReport(grid: grid, groups: out, changedCells: changed, changed: grid.area(changed), work: work, cellGroups: cellGroups)
    }
}
