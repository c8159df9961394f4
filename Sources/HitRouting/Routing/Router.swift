/// The answer to one routed point.
public struct HitResult: Sendable {
    /// The target layer's index, or nil when nothing accepts the point.
    public var target: Int?
    /// The point in the target's local coordinates.
    public var local: Point?
    /// Every decision in visiting order (empty unless requested).
    public var trace: [TraceEntry]
    /// Every layer that accepts the point, front to back (only when requested).
    public var stack: [Int]?
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
        var walk = Walk(scene: self, tracing: trace)
        _ = walk.visitSiblings(order: roots[...], index: rootIndex, point)
        var result = HitResult(target: walk.target.map(Int.init), local: walk.local, trace: walk.trace, stack: nil)
        if all {
            var stack: [Int] = []
            for root in roots { collect(root, point, into: &stack) }
            result.stack = stack
        }
        return result
    }

    /// Appends every layer of the subtree at `n` that would accept `p`
    /// (parent coordinates), in visiting order.
    private func collect(_ n: Int32, _ pParent: Point, into stack: inout [Int]) {
        let node = nodes[Int(n)]
        guard node.skip == nil else { return }
        let p = node.toLocal.apply(pParent)
        var inside: Bool?
        if node.clipChildren {
            inside = node.region >= 0 && regions[Int(node.region)].test(p).isHit
            guard inside! else { return }
        }
        if node.pointerEvents != .selfOnly {
            for child in children(of: n) { collect(child, p, into: &stack) }
        }
        guard node.pointerEvents != .childrenOnly, node.region >= 0 else { return }
        if inside ?? regions[Int(node.region)].test(p).isHit { stack.append(Int(n)) }
    }

    /// The number of layers below `n` (its descendants).
    func descendantCount(_ n: Int32) -> Int {
        var count = 0
        var pending = [n]
        while let k = pending.popLast() {
            let kids = children(of: k)
            count += kids.count
            pending += kids
        }
        return count
    }
}

/// One routing pass: SPEC §3's `visit`, stopping at the first target.
private struct Walk {
    let scene: CompiledScene
    let tracing: Bool
    var trace: [TraceEntry] = []
    var target: Int32?
    var local: Point?
    /// Candidate ranks from sibling indexes, used as a stack across recursion.
    var candidates: [Int32] = []

    init(scene: CompiledScene, tracing: Bool) {
        self.scene = scene
        self.tracing = tracing
    }

    @inline(__always)
    private mutating func record(
        _ n: Int32, _ decision: Decision, _ reason: Reason, _ detail: TraceDetail? = nil,
        local: Point? = nil
    ) {
        if tracing {
            trace.append(TraceEntry(layer: Int(n), decision: decision, reason: reason, detail: detail, local: local))
        }
    }

    /// Visits siblings front to back (`order` is their visiting order); true
    /// when one of them holds the target. Without a trace, an index skips
    /// the siblings whose reach misses `p`: they could only miss.
    mutating func visitSiblings(order: ArraySlice<Int32>, index: Int32, _ p: Point) -> Bool {
        guard index >= 0 && !tracing else {
            for n in order where visit(n, p) { return true }
            return false
        }
        let start = candidates.count
        scene.indexes[Int(index)].candidates(containing: p, into: &candidates)
        defer { candidates.removeSubrange(start...) }
        if candidates.count - start > 1 { candidates[start...].sort() }
        var i = start
        while i < candidates.count {
            if visit(order[order.startIndex + Int(candidates[i])], p) { return true }
            i += 1
        }
        return false
    }

    /// Visits the subtree at `n` with `pParent` in its parent's coordinates;
    /// true when it found the target.
    mutating func visit(_ n: Int32, _ pParent: Point) -> Bool {
        let node = scene.nodes[Int(n)]
        if let skip = node.skip {
            switch skip {
            case .hidden: record(n, .skip, .hidden)
            case .transparent: record(n, .skip, .transparent, .opacity(node.opacity))
            case .pointerEventsNone: record(n, .skip, .pointerEventsNone)
            case .singularTransform: record(n, .skip, .singularTransform, .determinant(node.toParent.determinant))
            }
            return false
        }
        let p = node.toLocal.apply(pParent)
        var test: RegionTest?
        if node.clipChildren {
            let t = node.region >= 0 ? scene.regions[Int(node.region)].test(p) : .outside
            guard t.isHit else {
                let hidden = tracing ? scene.descendantCount(n) : 0
                record(n, .miss, .clipped, .clippedDescendants(hidden), local: p)
                return false
            }
            test = t
        }
        if node.pointerEvents != .selfOnly {
            let start = Int(node.childStart)
            let children = scene.order[start..<start + Int(node.childCount)]
            if visitSiblings(order: children, index: node.childIndex, p) { return true }
        }
        if node.pointerEvents == .childrenOnly {
            record(n, .miss, .childrenOnly, local: p)
            return false
        }
        guard node.region >= 0 else {
            record(n, .miss, .noShape, node.hasShape ? .emptyRegion : .noShape, local: p)
            return false
        }
        let region = scene.regions[Int(node.region)]
        switch test ?? region.test(p) {
        case .inside:
            record(n, .hit, .inside, local: p)
        case .insideStroke:
            record(n, .hit, .insideStroke, .withinStroke(region.halfStroke), local: p)
        case .insideSlop:
            record(n, .hit, .insideSlop, .withinSlop, local: p)
        case .outside:
            record(n, .miss, .outside, local: p)
            return false
        case .inHole(let contours, let winding):
            record(n, .miss, .inHole, .inHole(region.fillRule, contours: contours, winding: winding), local: p)
            return false
        }
        target = n
        local = p
        return true
    }
}
