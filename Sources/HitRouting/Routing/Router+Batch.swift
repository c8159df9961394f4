import CPrefetch

extension CompiledScene {
    /// Routes many points: `answers[i]` becomes `target(at: points[i])`,
    /// or -1 where no layer accepts the point.
    ///
    /// The answers are exactly those of `target(at:)`; only the memory
    /// traffic differs. In a big scene each point waits on a chain of cache
    /// misses (its grid cell, the cell's entries, its candidates' covers,
    /// nodes and vertices), each link needing the one before. Here
    /// the points go in groups through a software pipeline: while one group
    /// is routed, the groups behind it have their next link requested, so
    /// that the misses of many points overlap instead of queueing. Scenes
    /// small enough to stay in cache are routed point by point, where the
    /// requests would only add work. Batches of many points, in any scene
    /// with a root grid, go in the grid's order (`GridOrder`).
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
    /// `minimumSiblings` siblings, and in the grid's order from
    /// `minimumPoints` points (by default as `GridOrder` says). Tests pass
    /// 0 to force either and `Int.max` to refuse it.
    func targets(at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>,
                 pipelineFrom minimumSiblings: Int, gridOrderFrom minimumPoints: Int? = nil) {
        precondition(answers.count >= points.count, "one answer slot per point")
        withTables { tables in
            func oneByOne(_ points: UnsafeBufferPointer<Point>, _ answers: UnsafeMutableBufferPointer<Int32>) {
                var walk = Walk(tracing: false, wantsLocal: false)
                for (i, p) in points.enumerated() { answers[i] = tables.target(at: p, rootIndex: rootIndex, &walk) }
            }
            guard rootIndex >= 0, let grid = tables.indexes[Int(rootIndex)].gridView else { return oneByOne(points, answers) }
            let usePipeline = roots.count >= minimumSiblings
            func route(_ points: UnsafeBufferPointer<Point>, _ answers: UnsafeMutableBufferPointer<Int32>) {
                if usePipeline { pipelined(tables, grid, points, answers) } else { oneByOne(points, answers) }
            }
            if points.count >= minimumPoints ?? GridOrder.minimumPoints(grid) {
                GridOrder.apply(grid, points, answers, route: route)
            } else {
                route(points, answers)
            }
        }
    }

    /// Routes `points` through `PrefetchPipeline`.
    private func pipelined(_ tables: Tables, _ grid: SiblingGrid.View,
                           _ points: UnsafeBufferPointer<Point>, _ answers: UnsafeMutableBufferPointer<Int32>) {
        let size = PrefetchPipeline.groupSize, stages = PrefetchPipeline.stages
        let slotSize = size * PrefetchPipeline.slotsPerPoint
        let groups = (points.count + size - 1) / size
        func range(_ g: Int) -> Range<Int> { g * size..<min(g * size + size, points.count) }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: slotSize * (stages + 1)) { memory in
            let pipeline = PrefetchPipeline(tables: tables, grid: grid)
            var walk = Walk(tracing: false, wantsLocal: false)
            // Group g gets stage s at step g + s and is routed at step g + stages;
            // it keeps slot g % (stages + 1) of `memory` meanwhile.
            for step in 0..<groups + stages {
                for s in 0..<stages where 0 <= step - s && step - s < groups {
                    let g = step - s
                    let slot = memory.baseAddress.unsafelyUnwrapped + slotSize * (g % (stages + 1))
                    pipeline.run(stage: s, UnsafeBufferPointer(rebasing: points[range(g)]), slot)
                }
                guard step >= stages else { continue }
                for i in range(step - stages) { answers[i] = tables.target(at: points[i], rootIndex: rootIndex, &walk) }
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
    /// `walk` (not tracing) may serve many points in turn: a batch then
    /// neither builds nor frees one per point, and its candidate stack
    /// keeps its capacity.
    func target(at p: Point, rootIndex: Int32, _ walk: inout Walk) -> Int32 {
        walk.target = nil
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
/// generate N` scenes (see Benchmarks/README.md): about half the time per
/// point at 10⁵ and 2.5·10⁵ layers. At 10³–10⁴ layers, whose routing
/// data (about 1 KB per polygon layer) stay in cache, the requests only
/// added work while this was tuned, hence `minimumSiblings`.
///
/// The requests go to the second-level cache (`hitroute_prefetch_l2`):
/// requests into the first level stalled the thread once its few miss
/// buffers were full, and took 15–20% longer. They cost memory bandwidth,
/// so only lines about to be read are requested: a node only when its
/// cover leaves the point open, and none past a cover that settles it.
/// Tuned with `Benchmarks/inproc-ab.py` at 2.5·10⁵ layers: groups of 8
/// (4 to 16 measured alike, 32 slower), 2 candidates (1 or 3 slower).
private struct PrefetchPipeline {
    /// Points per group.
    static let groupSize = 8
    static let stages = 5
    /// Siblings per point whose memory is requested (front to back).
    static let candidates = 2
    /// Slots per point: its cell, and its steps or its candidates.
    static let slotsPerPoint = 1 + candidates
    /// Root siblings below which the pipeline is not used.
    static let minimumSiblings = 32_768

    let tables: Tables
    let grid: SiblingGrid.View

    /// Runs `stage` for one group of points. `slot` (`slotsPerPoint` per
    /// point) carries from stage to stage each point's cell, then its steps
    /// in the cell, then its first `candidates` siblings' layers (-1 past
    /// the last).
    func run(stage: Int, _ points: UnsafeBufferPointer<Point>, _ slot: UnsafeMutablePointer<Int32>) {
        let count = points.count, cells = slot
        @inline(__always) func found(_ c: Int) -> UnsafeMutablePointer<Int32> { slot + count * (1 + c) }
        switch stage {
        case 0:  // The cell's bounds.
            for (k, p) in points.enumerated() {
                guard let spot = grid.locate(p) else {
                    cells[k] = -1
                    continue
                }
                cells[k] = Int32(spot.cell)
                found(0)[k] = Int32(spot.sx) | Int32(spot.sy) << 8
                request(grid.cellStart, spot.cell)
            }
        case 1:  // The cell's first entries.
            for k in 0..<count where cells[k] >= 0 {
                request(grid.entries, Int(grid.cellStart[Int(cells[k])]))
            }
        case 2:  // The first entries holding the point: their siblings' covers (at the start of their nodes).
            for k in 0..<count {
                let cell = Int(cells[k]), steps = found(0)[k]
                var c = 0
                if cell >= 0 {
                    let sx = UInt8(steps & 255), sy = UInt8(steps >> 8)
                    var i = Int(grid.cellStart[cell])
                    let end = Int(grid.cellStart[cell + 1])
                    while c < Self.candidates {
                        i = grid.firstEntry(from: i, to: end, sx, sy)
                        guard i < end else { break }
                        let n = Int(grid.entries[i].layer)
                        found(c)[k] = Int32(n)
                        requestLines(tables.nodes.baseAddress.unsafelyUnwrapped + n, bytes: CompiledScene.Node.coverBytes)
                        c += 1
                        i += 1
                    }
                }
                for c in c..<Self.candidates { found(c)[k] = -1 }
            }
        case 3:  // The rest of the nodes the covers leave open, up to one that certainly holds the point.
            for (k, p) in points.enumerated() {
                var open = 0
                for c in 0..<Self.candidates {
                    let n = Int(found(c)[k])
                    guard n >= 0 else { break }
                    let cover = tables.nodes[n].cover, bit = cover.bit(p)
                    guard cover.maybe & bit != 0 else { continue }
                    guard cover.filled & bit == 0 else { break }
                    found(open)[k] = Int32(n)
                    open += 1
                    let coverBytes = CompiledScene.Node.coverBytes  // requested in stage 2
                    requestLines(UnsafeRawPointer(tables.nodes.baseAddress.unsafelyUnwrapped + n) + coverBytes,
                                 bytes: CompiledScene.Node.hotBytes - coverBytes)
                }
                for c in open..<Self.candidates { found(c)[k] = -1 }
            }
        default:  // Their vertices.
            for c in 0..<Self.candidates {
                for k in 0..<count where found(c)[k] >= 0 {
                    guard let polygon = tables.nodes[Int(found(c)[k])].plainPolygon else { continue }
                    requestLines(polygon.baseAddress.unsafelyUnwrapped, bytes: polygon.count * MemoryLayout<Point>.stride)
                }
            }
        }
    }

    /// Requests the line of `array[i]`, into the second-level cache: the
    /// pipeline keeps some hundred lines in flight.
    @inline(__always)
    private func request<T>(_ array: UnsafeBufferPointer<T>, _ i: Int) {
        hitroute_prefetch_l2(array.baseAddress.unsafelyUnwrapped + i)
    }

    /// Requests every cache line of `bytes` bytes at `start`, which need
    /// not start a line (a cover, a node, a polygon's vertices).
    @inline(__always)
    private func requestLines(_ start: UnsafeRawPointer, bytes: Int) {
        let first = UInt(bitPattern: start) & ~63, last = UInt(bitPattern: start) &+ UInt(bytes) &- 1
        for line in stride(from: first, through: last, by: 64) {
            hitroute_prefetch_l2(UnsafeRawPointer(bitPattern: line))
        }
    }
}
