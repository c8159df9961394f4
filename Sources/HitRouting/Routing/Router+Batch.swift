import CPrefetch

extension CompiledScene {
    /// Routes many points: `answers[i]` becomes `target(at: points[i])`,
    /// or -1 where no layer accepts the point.
    ///
    /// The answers are exactly those of `target(at:)`; only the memory
    /// traffic differs. In a big scene each point waits on a chain of cache
    /// misses (its grid cell, the cell's entries, the first candidate's
    /// cover, node and vertices), each link needing the one before. Here
    /// the points go in groups through a software pipeline: while one group
    /// is routed, the groups behind it have their next link requested, so
    /// that the misses of many points overlap instead of queueing. Scenes
    /// small enough to stay in cache are routed point by point, where the
    /// requests would only add work.
    ///
    /// - Parameters:
    ///   - points: scene coordinates, y-down.
    ///   - answers: at least `points.count` slots.
    /// - Complexity: that of `target(at:)` per point, plus O(1) per point
    ///   for the requests.
    public func targets(at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>) {
        targets(at: points, into: answers, pipelineFrom: PrefetchPipeline.minimumSiblings)
    }

    /// `targets(at:into:)`, pipelined when the root grid holds at least
    /// `minimumSiblings` siblings (tests pass 0).
    func targets(at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>,
                 pipelineFrom minimumSiblings: Int) {
        precondition(answers.count >= points.count, "one answer slot per point")
        withTables { tables in
            guard rootIndex >= 0, roots.count >= minimumSiblings,
                let grid = tables.indexes[Int(rootIndex)].gridView
            else {
                for (i, p) in points.enumerated() { answers[i] = tables.target(at: p, rootIndex: rootIndex) }
                return
            }
            let size = PrefetchPipeline.groupSize, stages = PrefetchPipeline.stages
            let groups = (points.count + size - 1) / size
            func range(_ g: Int) -> Range<Int> { g * size..<min(g * size + size, points.count) }
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * size * (stages + 1)) { memory in
                let pipeline = PrefetchPipeline(tables: tables, grid: grid)
                // Group g gets stage s at step g + s and is routed at step g + stages;
                // it keeps slot g % (stages + 1) of `memory` meanwhile.
                for step in 0..<groups + stages {
                    for s in 0..<stages where 0 <= step - s && step - s < groups {
                        let g = step - s
                        let slot = memory.baseAddress.unsafelyUnwrapped + 2 * size * (g % (stages + 1))
                        pipeline.run(stage: s, UnsafeBufferPointer(rebasing: points[range(g)]), slot)
                    }
                    guard step >= stages else { continue }
                    for i in range(step - stages) { answers[i] = tables.target(at: points[i], rootIndex: rootIndex) }
                }
            }
        }
    }
}

extension CompiledScene {
    /// Requests the memory that describing layer `n` reads first (its id
    /// and action): a hint for code about to describe many layers in turn,
    /// such as a batch answer, issued a few layers ahead.
    public func prefetchDescription(of n: Int) {
        ids.withUnsafeBufferPointer { hitroute_prefetch($0.baseAddress.unsafelyUnwrapped + n) }
        actions.withUnsafeBufferPointer { hitroute_prefetch($0.baseAddress.unsafelyUnwrapped + n) }
    }
}

extension Tables {
    /// `CompiledScene.target(at:)` on borrowed tables: the target, or -1.
    func target(at p: Point, rootIndex: Int32) -> Int32 {
        var walk = Walk(tracing: false, wantsLocal: false)
        _ = visitSiblings(roots, index: rootIndex, p, &walk)
        return walk.target ?? -1
    }
}

/// The memory requests of `CompiledScene.targets(at:into:)`, in the order
/// routing a point through the root grid reads it. Each stage reads only
/// what the stage before requested (one pipeline step earlier) and requests
/// the next link. A hint only: answers never depend on it.
///
/// Measured with `hitroute-inproc --side-by-side` on `hitroute-bench
/// generate N` scenes (see Benchmarks/README.md): about a third less time
/// per point at 10⁵ and 2.5·10⁵ layers. At 10³–10⁴ layers, whose routing
/// data (about 1 KB per polygon layer) stay in cache, the requests only
/// added work while this was tuned, hence `minimumSiblings`.
private struct PrefetchPipeline {
    /// Points per group.
    static let groupSize = 16
    static let stages = 5
    /// Root siblings below which the pipeline is not used.
    static let minimumSiblings = 32_768

    let tables: Tables
    let grid: SiblingGrid.View

    /// Runs `stage` for one group of points; `slot` (two per point) carries
    /// each point's cell, and its steps in the cell and then its first
    /// candidate, from stage to stage.
    func run(stage: Int, _ points: UnsafeBufferPointer<Point>, _ slot: UnsafeMutablePointer<Int32>) {
        let cells = slot, found = slot + points.count
        switch stage {
        case 0:  // The cell's bounds.
            for (k, p) in points.enumerated() {
                guard let spot = grid.locate(p) else {
                    cells[k] = -1
                    continue
                }
                cells[k] = Int32(spot.cell)
                found[k] = Int32(spot.sx) | Int32(spot.sy) << 8
                request(grid.cellStart, spot.cell)
            }
        case 1:  // The cell's first entries.
            for k in points.indices where cells[k] >= 0 {
                request(grid.entries, Int(grid.cellStart[Int(cells[k])]))
            }
        case 2:  // The first entry holding the point: its layer's slot in the visiting order.
            for k in points.indices {
                let cell = Int(cells[k]), steps = found[k]
                found[k] = -1
                guard cell >= 0 else { continue }
                let end = Int(grid.cellStart[cell + 1])
                let i = grid.firstEntry(from: Int(grid.cellStart[cell]), to: end, UInt8(steps & 255), UInt8(steps >> 8))
                guard i < end else { continue }
                found[k] = grid.entries[i].rank
                request(tables.roots, Int(found[k]))
            }
        case 3:  // That layer's cover and node (its hot fields span two lines).
            for k in points.indices where found[k] >= 0 {
                let n = Int(tables.roots[Int(found[k])])
                found[k] = Int32(n)
                request(tables.covers, n)
                let node = UnsafeRawPointer(tables.nodes.baseAddress.unsafelyUnwrapped + n)
                hitroute_prefetch(node)
                hitroute_prefetch(node + 64)
            }
        default:  // Its vertices, unless the cover settles the point.
            for (k, p) in points.enumerated() where found[k] >= 0 {
                let n = Int(found[k])
                let cover = tables.covers[n], bit = cover.bit(p)
                guard cover.maybe & bit != 0, cover.filled & bit == 0, let polygon = tables.nodes[n].plainPolygon else { continue }
                let bytes = UnsafeRawPointer(polygon.baseAddress.unsafelyUnwrapped)
                for offset in stride(from: 0, to: polygon.count * MemoryLayout<Point>.stride, by: 64) {
                    hitroute_prefetch(bytes + offset)
                }
            }
        }
    }

    @inline(__always)
    private func request<T>(_ array: UnsafeBufferPointer<T>, _ i: Int) {
        hitroute_prefetch(array.baseAddress.unsafelyUnwrapped + i)
    }
}
