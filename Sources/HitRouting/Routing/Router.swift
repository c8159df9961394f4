/// The answer to one routed point.
public struct HitResult: Sendable {
    /// The target layer's index, or nil when nothing accepts the point.
    public var target: Int?
    /// The point in the target's local coordinates.
    public var local: Point?
    /// Every decision in visiting order (empty unless requested).
    public var trace: [TraceEntry]
    /// Every layer that accepts the point, front to back (only when
    /// requested): pass-through layers included, so the receivers come
    /// first, then the target.
    public var stack: [Int]?
    /// Pass-through layers that received the point, front to back (SPEC §3).
    public var receivers: [Int] = []

    public init(target: Int?, local: Point?, trace: [TraceEntry] = [], stack: [Int]? = nil, receivers: [Int] = []) {
        self.receivers = receivers
        self.target = target
        self.local = local
        self.trace = trace
        self.stack = stack
    }
}

extension CompiledScene {
    /// Routes a point given in scene coordinates (SPEC §3).
    ///
    ///     scene.hit(Point(120, 120)).target   // the button under the ring's hole
    ///
    /// - Parameters:
    ///   - point: scene coordinates, y-down.
    ///   - trace: record one `TraceEntry` per decision.
    ///   - all: also collect every accepting layer (`stack`), as if each one
    ///     above had let the point through.
    /// - Complexity: O(visited layers × their region size); layers whose
    ///   bounds miss the point cost O(1) each.
    public func hit(_ point: Point, trace: Bool = false, all: Bool = false) -> HitResult {
        var work = 0
        return hit(point, trace: trace, all: all, work: &work)
    }

    /// `hit(_:trace:all:)`, adding what routing read to `work` (`Walk.work`).
    public func hit(_ point: Point, trace: Bool = false, all: Bool = false, work: inout Int) -> HitResult {
        var walk = Walk(tracing: trace)
        walk.collectsReceivers = true
        // One allocation for the trace: at most one entry per layer; more than 32 are rare.
        if trace { walk.trace.reserveCapacity(Swift.min(nodes.count, 32)) }
        withTables { tables in _ = tables.visitSiblings(tables.roots, index: rootIndex, point, &walk) }
        work &+= walk.work
        var result = HitResult(target: walk.target.map(Int.init), local: walk.local, trace: walk.trace, stack: nil)
        if !walk.receivers.isEmpty { result.receivers = walk.receivers.map(Int.init) }
        if all {
            var stack: [Int] = []
            for root in roots { collect(root, point, into: &stack, work: &work) }
            result.stack = stack
        }
        return result
    }

    /// The topmost layer that accepts `point` (scene coordinates): the
    /// same as `hit(point).target`, without the local point, trace or
    /// stack (what a batch entry needs). Layers a cover settles as hit are
    /// then never read at all.
    public func target(at point: Point) -> Int? {
        var work = 0
        return target(at: point, work: &work)
    }

    /// `target(at:)`, adding what routing read to `work` (`Walk.work`).
    public func target(at point: Point, work: inout Int) -> Int? {
        var walk = Walk(tracing: false, wantsLocal: false)
        let target = withTables { $0.target(at: point, rootIndex: rootIndex, &walk) }
        work &+= walk.work
        return target >= 0 ? Int(target) : nil
    }

    /// Calls `body` with borrowed views of the arrays routing reads: the
    /// walk then neither copies the scene nor retains its arrays per layer.
    func withTables<R>(_ body: (Tables) -> R) -> R {
        nodes.withUnsafeBufferPointer { nodes in
            regions.withUnsafeBufferPointer { regions in
                order.withUnsafeBufferPointer { order in
                    roots.withUnsafeBufferPointer { roots in
                        indexes.withUnsafeBufferPointer { indexes in
                            body(Tables(nodes: nodes, regions: regions, order: order, roots: roots, indexes: indexes))
                        }
                    }
                }
            }
        }
    }

    /// Appends every layer of the subtree at `n` that would accept `p`
    /// (parent coordinates), in visiting order; adds what it read to `work`.
    private func collect(_ n: Int32, _ pParent: Point, into stack: inout [Int], work: inout Int) {
        let node = nodes[Int(n)]
        work &+= 1
        guard node.skip == nil else { return }
        let p = node.toLocal.apply(pParent)
        func accepts() -> Bool {
            node.region >= 0 && regions[Int(node.region)].test(p, work: &work).isHit
        }
        var inside: Bool?
        if node.clipChildren {
            inside = accepts()
            guard inside! else { return }
        }
        if node.pointerEvents != .selfOnly {
            for child in children(of: n) { collect(child, p, into: &stack, work: &work) }
        }
        guard node.pointerEvents != .childrenOnly, node.region >= 0 else { return }
        if inside ?? accepts() { stack.append(Int(n)) }
    }
}

/// The state of one routing pass (SPEC §3's `visit`, stopping at the first
/// target). The scene is borrowed by the visiting methods, never copied.
struct Walk {
    let tracing: Bool
    /// Whether `local` is wanted for the target (else it may stay nil).
    var wantsLocal = true
    /// Whether pass-through layers that receive the point are listed in `receivers`.
    var collectsReceivers = false
    /// Pass-through layers that received the point, front to back (SPEC §3).
    var receivers: [Int32] = []
    var trace: [TraceEntry] = []
    var target: Int32?
    var local: Point?
    /// Candidate ranks from sibling indexes, used as a stack across recursion.
    var candidates: [Int32] = []
    /// What the walk has read so far: 1 per layer visited and per
    /// candidate a sibling index yields or passes over, and in regions
    /// (`Region.test`) 1 per region tested and per contour, plus each
    /// vertex, edge, curve piece, bisection step, run box or mask line
    /// read. A deterministic measure of routing work, each unit a few
    /// nanoseconds: what bounds a batch
    /// (`CompiledScene.targets(at:into:workLimit:)`).
    var work = 0

    /// Puts the least of `ranks` after its first `taken` at position
    /// `taken`, where earlier calls with 0, 1, … `taken` − 1 put theirs:
    /// candidates from a sibling tree come in any order, routing visits
    /// them front to back (ascending rank), and the first one mostly
    /// answers. Few (≤ 16, as for well-spread siblings) are sorted by
    /// insertion at the first call. Of k more (a point inside thousands of
    /// stacked siblings) the first 4 are chosen by a scan, O(k) each, and
    /// the rest sorted only if the walk gets that far: O(k log k) in all,
    /// never O(k²). Returns the candidates scanned or sorted (`Walk.work`).
    static func bringFront(_ ranks: inout ArraySlice<Int32>, taken: Int) -> Int {
        let i = ranks.startIndex &+ taken
        if ranks.count <= 16 {
            guard taken == 0 else { return 0 }
            for k in ranks.indices.dropFirst() {
                let v = ranks[k]
                var j = k
                while j > ranks.startIndex && ranks[j - 1] > v {
                    ranks[j] = ranks[j - 1]
                    j -= 1
                }
                ranks[j] = v
            }
            return 0
        }
        if taken < 4 {
            var least = i
            for k in i..<ranks.endIndex where ranks[k] < ranks[least] { least = k }
            ranks.swapAt(i, least)
            return ranks.endIndex &- i
        }
        guard taken == 4 else { return 0 }
        ranks[i...].sort()
        return ranks.endIndex &- i
    }

    @inline(__always)
    mutating func record(
        _ n: Int32, _ decision: Decision, _ reason: Reason, _ detail: TraceDetail? = nil, local: Point? = nil
    ) {
        if tracing {
            // A local image that overflowed is left out (SPEC §1: no answer holds a non-finite number).
            trace.append(TraceEntry(layer: Int(n), decision: decision, reason: reason, detail: detail, local: local?.finiteOrNil))
        }
    }
}

/// What a layer's cover says of a point: outside the region, certainly
/// inside it (a hit), or left open to a visit.
enum CoverVerdict {
    case miss, hit, open
}

/// Borrowed views of a `CompiledScene`'s routing arrays, valid inside
/// `CompiledScene.withTables`; the visiting methods read through them.
struct Tables {
    let nodes: UnsafeBufferPointer<CompiledScene.Node>
    let regions: UnsafeBufferPointer<Region>
    let order: UnsafeBufferPointer<Int32>
    let roots: UnsafeBufferPointer<Int32>
    let indexes: UnsafeBufferPointer<SiblingIndex>

    /// Region `r`, in place.
    func region(_ r: Int32) -> UnsafePointer<Region> { regions.baseAddress.unsafelyUnwrapped + Int(r) }

    /// The children of layer `n` in visiting order.
    func children(of node: CompiledScene.Node) -> UnsafeBufferPointer<Int32> {
        UnsafeBufferPointer(rebasing: order[Int(node.childStart)..<Int(node.childStart + node.childCount)])
    }

    /// The number of layers below `n` (its descendants).
    func descendantCount(_ n: Int32) -> Int {
        var count = 0
        var pending = [n]
        while let k = pending.popLast() {
            let kids = children(of: nodes[Int(k)])
            count += kids.count
            pending += kids
        }
        return count
    }

    /// Visits siblings front to back (`siblings` is their visiting order);
    /// true when one of them holds the target. Without a trace, an index
    /// skips the siblings whose reach misses `p`: they could only miss.
    func visitSiblings(_ siblings: UnsafeBufferPointer<Int32>, index: Int32, _ p: Point, _ walk: inout Walk) -> Bool {
        guard index >= 0 && !walk.tracing else {
            for n in siblings where visit(n, p, &walk) { return true }
            return false
        }
        let index = indexes.baseAddress.unsafelyUnwrapped + Int(index)
        if let grid = index.pointee.gridView {
            var read = 0
            defer { walk.work &+= read }
            return grid.first(containing: p, siblings: siblings, rank: { nodes[Int($0)].rank }, work: &read) {
                visitIndexed($0, p, &walk)
            }
        }
        if walk.candidates.capacity == 0 { walk.candidates.reserveCapacity(32) }
        let start = walk.candidates.count
        index.pointee.candidates(containing: p, into: &walk.candidates)
        defer { walk.candidates.removeLast(walk.candidates.count - start) }
        let end = walk.candidates.count
        walk.work &+= end &- start
        var i = start
        while i < end {
            walk.work &+= Walk.bringFront(&walk.candidates[start..<end], taken: i &- start)
            if visitIndexed(siblings[Int(walk.candidates[i])], p, &walk) { return true }
            i += 1
        }
        return false
    }

    /// Visits a sibling an index found, unless its cover settles the point
    /// first: outside its region, or certainly inside (a hit, as the visit
    /// would find). True when it holds the target.
    func visitIndexed(_ n: Int32, _ p: Point, _ walk: inout Walk) -> Bool {
        switch coverVerdict(n, p) {
        case .miss:
            return false
        case .hit:
            walk.target = n
            if walk.wantsLocal { walk.local = nodes[Int(n)].toLocal.apply(p) }
            return true
        case .open:
            return visit(n, p, &walk)
        }
    }

    /// What layer `n`'s cover says of `p` (its parent's coordinates),
    /// reading nothing else of the layer.
    @inline(__always)
    func coverVerdict(_ n: Int32, _ p: Point) -> CoverVerdict {
        let cover = nodes.baseAddress.unsafelyUnwrapped[Int(n)].cover
        let bit = cover.bit(p)
        guard cover.maybe & bit != 0 else { return .miss }
        return cover.filled & bit != 0 ? .hit : .open
    }

    /// For a mask region, the pixel holding `p` (local) against the
    /// threshold, or that `p` is outside the mask; nil for other regions.
    static func maskDetail(_ region: UnsafePointer<Region>, _ p: Point) -> TraceDetail? {
        guard let mask = region.pointee.mask else { return nil }
        guard let (i, j) = mask.pixel(at: p) else { return .outsideMask(columns: mask.columns, rows: mask.rows) }
        return .maskPixel(column: i, row: j, alpha: Int(mask.alpha[j * mask.columns + i]), minimum: mask.minimumAlpha)
    }

    /// Visits the subtree at `n` with `pParent` in its parent's coordinates;
    /// true when it found the target.
    func visit(_ n: Int32, _ pParent: Point, _ walk: inout Walk) -> Bool {
        let node = nodes[Int(n)]
        walk.work &+= 1
        if let skip = node.skip {
            switch skip {
            case .hidden: walk.record(n, .skip, .hidden)
            case .transparent: walk.record(n, .skip, .transparent, .opacity(node.opacity))
            case .pointerEventsNone: walk.record(n, .skip, .pointerEventsNone)
            case .singularTransform: walk.record(n, .skip, .singularTransform, .determinant(node.toParent.determinant))
            }
            return false
        }
        let p = node.toLocal.apply(pParent)
        var test: RegionTest?
        if node.clipChildren {
            let t = node.region >= 0 ? Region.test(region(node.region), p, work: &walk.work) : .outside
            guard t.isHit else {
                walk.record(n, .miss, .clipped, walk.tracing ? .clippedDescendants(descendantCount(n)) : nil, local: p)
                return false
            }
            test = t
        }
        if node.pointerEvents != .selfOnly && node.childCount > 0 {
            if visitSiblings(children(of: node), index: node.childIndex, p, &walk) {
                return true
            }
        }
        if node.pointerEvents == .childrenOnly {
            walk.record(n, .miss, .childrenOnly, local: p)
            return false
        }
        guard node.region >= 0 else {
            walk.record(n, .miss, .noShape, node.hasShape ? .emptyRegion : .noShape, local: p)
            return false
        }
        let region = self.region(node.region)  // read in place: a copy would retain its arrays
        let outcome: RegionTest
        if test == nil, let polygon = node.plainPolygon {
            // Without reading the region. `reach` holds its bounds, so it
            // rejects far points as the region's own bounds would (a trace
            // visits every layer).
            if node.reach.contains(p) {
                walk.work &+= 1 &+ polygon.count
                outcome = node.fillRule.plainTest(polygon, p)
            } else {
                outcome = .outside
            }
        } else {
            outcome = test ?? Region.test(region, p, work: &walk.work)
        }
        let reason: Reason
        switch outcome {
        case .inside: reason = .inside
        case .insideStroke: reason = .insideStroke
        case .insideSlop: reason = .insideSlop
        case .outside:
            walk.record(n, .miss, .outside, walk.tracing ? Tables.maskDetail(region, p) : nil, local: p)
            return false
        case .inHole(let contours, let winding):
            walk.record(
                n, .miss, .inHole, walk.tracing ? .inHole(region.pointee.fillRule, contours: contours, winding: winding) : nil, local: p)
            return false
        }
        if node.passThrough {
            walk.record(n, .pass, .passThrough, .passedThrough(reason), local: p)
            if walk.collectsReceivers { walk.receivers.append(n) }
            return false
        }
        if walk.tracing {
            let detail: TraceDetail?
            switch reason {
            case .insideStroke: detail = .withinStroke(region.pointee.halfStroke)
            case .insideSlop: detail = .withinSlop
            default: detail = Tables.maskDetail(region, p)
            }
            walk.record(n, .hit, reason, detail, local: p)
        }
        walk.target = n
        walk.local = p
        return true
    }
}
