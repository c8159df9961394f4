import CPrefetch

extension CompiledScene {
    /// Routes many points: `answers[i]` becomes `target(at: points[i])`,
    /// or -1 where no layer accepts the point.
    ///
    /// The answers are exactly those of `target(at:)`; only the memory
    /// traffic differs. In a big scene each point waits on a chain of cache
    /// misses (its grid cell's entries, its candidates' covers, nodes and
    /// vertices), each link needing the one before. Here many points are
    /// routed at once (`InterleavedWalks`): each requests its next link and
    /// gives way to the others while it comes, so that the misses of many
    /// points overlap instead of queueing. Scenes small enough to stay in
    /// cache are routed point by point, where the requests would only add
    /// work. Batches of many points, in any scene with a root grid, go in
    /// the grid's order (`GridOrder`).
    ///
    /// - Parameters:
    ///   - points: scene coordinates, y-down.
    ///   - answers: at least `points.count` slots.
    /// - Complexity: that of `target(at:)` per point, plus O(1) per step
    ///   of a walk for the requests.
    public func targets(at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>) {
        _ = targets(at: points, into: answers, workLimit: .max)
    }

    /// `targets(at:into:)`, stopping once routing has read more than
    /// `workLimit` (`Walk.work`, summed over the points): a bound on what
    /// one batch may cost, whatever its shapes. Deterministic: the same
    /// scene and points always read the same.
    /// - Returns: what routing read. Over `workLimit`, it stopped after the
    ///   point that crossed it, and the answers of the points it did not
    ///   route are unspecified (in grid order they may look like targets).
    public func targets(
        at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>, workLimit: Int
    ) -> Int {
        targets(at: points, into: answers, interleavedFrom: InterleavedWalks.minimumSiblings, workLimit: workLimit)
    }

    /// `targets(at:into:)`, interleaved when the root grid holds at least
    /// `minimumSiblings` siblings, and in the grid's order from
    /// `minimumPoints` points (by default as `GridOrder` says). Tests pass
    /// 0 to force either and `Int.max` to refuse it.
    @discardableResult
    func targets(
        at points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>,
        interleavedFrom minimumSiblings: Int, gridOrderFrom minimumPoints: Int? = nil,
        workLimit: Int = .max
    ) -> Int {
        precondition(answers.count >= points.count, "one answer slot per point")  // callers allocate one per point
        return withTables { tables in
            var work = 0
            func oneByOne(_ points: UnsafeBufferPointer<Point>, _ answers: UnsafeMutableBufferPointer<Int32>) {
                var walk = Walk(tracing: false, wantsLocal: false)
                defer { work = walk.work }
                for (i, p) in points.enumerated() {
                    answers[i] = tables.target(at: p, rootIndex: rootIndex, &walk)
                    if walk.work > workLimit { return }
                }
            }
            guard rootIndex >= 0, let grid = tables.indexes[Int(rootIndex)].gridView else {
                oneByOne(points, answers)
                return work
            }
            let interleaved = roots.count >= minimumSiblings
            func route(_ points: UnsafeBufferPointer<Point>, _ answers: UnsafeMutableBufferPointer<Int32>) {
                guard interleaved else { return oneByOne(points, answers) }
                var walks = InterleavedWalks(tables: tables, grid: grid)
                walks.route(points, into: answers, workLimit: workLimit)
                work = walks.walk.work
            }
            if points.count >= minimumPoints ?? GridOrder.minimumPoints(grid) {
                GridOrder.apply(grid, points, answers, route: route)
            } else {
                route(points, answers)
            }
            return work
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

/// Many points routed through the root grid at once, each by a small
/// state machine that stops before every read likely to miss the cache:
/// it requests the memory, and the other walks take a step while it comes.
/// In a big scene one point's routing is a chain of misses (its cell's
/// entries, each candidate's cover, node and vertices), each needing the
/// one before; interleaved, the misses of many points overlap instead of
/// queueing, and no work is done twice. (A cell's bounds are read at once:
/// four bytes a cell, they mostly stay in cache.)
///
/// A walk takes exactly the steps of `Tables.target(at:rootIndex:_:)`
/// through a root grid: the same siblings (`SiblingGrid.View.Cursor`),
/// the same cover verdicts, the same visits; only their order in time
/// differs. The requests are hints: answers never depend on them. They
/// go into the second-level cache (`hitroute_prefetch_l2`). The width and
/// the threshold below were chosen with `Benchmarks/inproc-ab.py`; its
/// figures are in Benchmarks/README.md.
private struct InterleavedWalks {
    /// Walks in flight.
    static let width = 16
    /// Root siblings below which the walks are not interleaved: smaller
    /// scenes stay in cache, where the steps only add work.
    static let minimumSiblings = 32_768

    /// What a walk does at its next step.
    enum Stage {
        /// Find the next candidate (entries requested), request its cover.
        case entries
        /// Read the candidate's cover (requested): settled, or request the node.
        case cover
        /// Read the node (requested), request its vertices.
        case node
        /// Visit the candidate.
        case visit
    }

    struct Walker {
        /// The point's place in the batch; -1 for an idle walker.
        var place: Int
        var p: Point
        var cursor: SiblingGrid.View.Cursor
        var layer: Int32
        var stage: Stage
    }

    let tables: Tables
    let grid: SiblingGrid.View
    var walk = Walk(tracing: false, wantsLocal: false)
    /// `CompiledScene.Node`'s, read once (each is a lazy global).
    let coverBytes = CompiledScene.Node.coverBytes, hotBytes = CompiledScene.Node.hotBytes

    init(tables: Tables, grid: SiblingGrid.View) {
        self.tables = tables
        self.grid = grid
    }

    /// `answers[i]` becomes `points[i]`'s target, or -1; stops early once
    /// `walk.work` is over `workLimit`.
    mutating func route(_ points: UnsafeBufferPointer<Point>, into answers: UnsafeMutableBufferPointer<Int32>, workLimit: Int) {
        let idle = Walker(place: -1, p: .zero, cursor: .init(grid, .zero, at: nil), layer: -1, stage: .entries)
        withUnsafeTemporaryAllocation(of: Walker.self, capacity: Self.width) { walkers in
            walkers.initialize(repeating: idle)
            var next = 0
            var active = 0
            func start(_ k: Int) {
                let p = points[next]
                let cursor = SiblingGrid.View.Cursor(grid, p, at: grid.locate(p))
                request(grid.entries, cursor.nextEntry)
                walkers[k] = Walker(place: next, p: p, cursor: cursor, layer: -1, stage: .entries)
                next += 1
            }
            while active < Self.width && next < points.count {
                start(active)
                active += 1
            }
            while active > 0 {
                for k in 0..<Self.width where walkers[k].place >= 0 {
                    guard let answer = step(&walkers[k]) else { continue }
                    answers[walkers[k].place] = answer
                    if walk.work > workLimit { return }
                    if next < points.count {
                        start(k)
                    } else {
                        walkers[k].place = -1
                        active -= 1
                    }
                }
            }
        }
    }

    /// One step of a walk; its answer when it is done.
    private mutating func step(_ w: inout Walker) -> Int32? {
        switch w.stage {
        case .entries:
            return advance(&w)
        case .cover:
            switch tables.coverVerdict(w.layer, w.p) {
            case .miss:
                return advance(&w)
            case .hit:
                return w.layer
            case .open:
                requestLines(UnsafeRawPointer(node(w.layer)) + coverBytes, bytes: hotBytes - coverBytes)  // the cover's lines came with it
                w.stage = .node
                return nil
            }
        case .node:
            if let polygon = node(w.layer).pointee.plainPolygon {
                requestLines(polygon.baseAddress.unsafelyUnwrapped, bytes: polygon.count * MemoryLayout<Point>.stride)
            }
            w.stage = .visit
            return nil
        case .visit:
            if tables.visit(w.layer, w.p, &walk) { return walk.target.unsafelyUnwrapped }
            return advance(&w)
        }
    }

    /// Moves a walk to its next candidate and requests its cover; -1 when
    /// there is none.
    private mutating func advance(_ w: inout Walker) -> Int32? {
        let nodes = tables.nodes
        let layer = w.cursor.next(grid, w.p, siblings: tables.roots, rank: { nodes[Int($0)].rank }, work: &walk.work)
        guard layer >= 0 else { return -1 }
        w.layer = layer
        requestLines(node(layer), bytes: coverBytes)
        w.stage = .cover
        return nil
    }

    @inline(__always)
    private func node(_ n: Int32) -> UnsafePointer<CompiledScene.Node> { tables.nodes.baseAddress.unsafelyUnwrapped + Int(n) }

    /// Requests the line of `array[i]`, into the second-level cache.
    @inline(__always)
    private func request<T>(_ array: UnsafeBufferPointer<T>, _ i: Int) {
        hitroute_prefetch_l2(array.baseAddress.unsafelyUnwrapped + i)
    }

    /// Requests every cache line of `bytes` bytes at `start`, which need
    /// not start a line (a cover, a node, a polygon's vertices).
    @inline(__always)
    private func requestLines(_ start: UnsafeRawPointer, bytes: Int) {
        let first = UInt(bitPattern: start) & ~63
        let last = UInt(bitPattern: start) &+ UInt(bytes) &- 1
        for line in stride(from: first, through: last, by: 64) {
            hitroute_prefetch_l2(UnsafeRawPointer(bitPattern: line))
        }
    }
}
