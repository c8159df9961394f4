/// A layer's ancestry read as routing reads it, one point at a time: what
/// whole-scene questions (the audit's covered parts, a layer's lost
/// samples) ask of one layer at many points, without a trace and without
/// visiting the layers in front. None of it is on the hit path.
///
/// Every step maps the point exactly as a visit does (each layer's
/// `toLocal` in turn from the top-level layer down, never a composed
/// matrix), and tests regions as the `all` stack does (`Region.test`), so
/// its answers are those of `hit(_:trace:all:)` at the same point.
public struct LayerChain: Sendable {
    /// The layers from the top-level one down to the layer itself.
    public let layers: [Int32]

    /// Why a visit that reached the chain would not let the layer take the
    /// point (the first cause from the top; SPEC §3's codes).
    public enum Stop: Equatable, Sendable {
        /// The layer at that level is skipped before its region is looked at.
        case skip(Reason)
        /// The layer at that level clips its children and the point is
        /// outside its region.
        case clipped
        /// The layer at that level (an ancestor) is `self-only`.
        case selfOnly
        /// The layer itself is `children-only`.
        case childrenOnly
        /// The layer itself is `passThrough`: it would receive the point,
        /// not take it.
        case passThrough
    }

    /// What a point meets along the chain.
    public struct Outcome: Equatable, Sendable {
        /// Whether the point lies in the layer's own hit region (mapped
        /// through every transform on the way, whatever the flags).
        public var inside: Bool
        /// The first stop from the top, with its level in `layers`; nil
        /// when a visit that reaches the layer lets it accept the point
        /// (wherever `inside`).
        public var stop: (level: Int, why: Stop)?

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.inside == b.inside && a.stop?.level == b.stop?.level && a.stop?.why == b.stop?.why
        }

        /// Whether the layer is in the point's `all` stack (SPEC §4.2):
        /// inside, and nothing but its own pass-through stops it.
        public var inStack: Bool {
            guard inside else { return false }
            guard let stop else { return true }
            return stop.why == .passThrough
        }
    }
}

extension CompiledScene {
    /// The chain of layer `n`. O(depth).
    public func chain(to n: Int) -> LayerChain {
        var layers: [Int32] = []
        forEachLayer(onPathTo: n) { layers.append(Int32($0)) }
        return LayerChain(layers: layers)
    }

    /// Whether some layer on `chain` (the layer included) has a singular
    /// transform: then the layer has no place in the scene. O(depth).
    public func isSingular(_ chain: LayerChain) -> Bool {
        chain.layers.contains { nodes[Int($0)].skip == .singularTransform }
    }

    /// Whether layer `n` has a hit region with something in it.
    public func hasRegion(_ n: Int) -> Bool { nodes[n].region >= 0 }

    /// Follows `p` (scene coordinates) down `chain`; adds what it read to
    /// `work` (`Walk.work`: 1 per level, plus each region test's reads).
    /// - Complexity: O(depth) plus the region tests: the layer's own, and
    ///   the clipping ancestors' above the first stop.
    public func follow(_ chain: LayerChain, _ p: Point, work: inout Int) -> LayerChain.Outcome {
        var q = p
        var stop: (level: Int, why: LayerChain.Stop)?
        let last = chain.layers.count - 1
        var ownTest: RegionTest?
        for (level, n) in chain.layers.enumerated() {
            let node = nodes[Int(n)]
            work &+= 1
            if stop == nil, let skip = node.skip {
                switch skip {
                case .hidden: stop = (level, .skip(.hidden))
                case .transparent: stop = (level, .skip(.transparent))
                case .pointerEventsNone: stop = (level, .skip(.pointerEventsNone))
                case .singularTransform: stop = (level, .skip(.singularTransform))
                }
            }
            q = node.toLocal.apply(q)
            if stop == nil, node.clipChildren {
                let t = node.region >= 0 ? regions[Int(node.region)].test(q, work: &work) : .outside
                if level == last { ownTest = t }
                if !t.isHit { stop = (level, .clipped) }
            }
            if stop == nil, level < last, node.pointerEvents == .selfOnly { stop = (level, .selfOnly) }
        }
        guard last >= 0 else { return LayerChain.Outcome(inside: false, stop: nil) }
        let node = nodes[Int(chain.layers[last])]
        let inside: Bool
        if let ownTest {
            inside = ownTest.isHit
        } else {
            inside = node.region >= 0 && regions[Int(node.region)].test(q, work: &work).isHit
        }
        if stop == nil, node.pointerEvents == .childrenOnly { stop = (last, .childrenOnly) }
        if stop == nil, node.passThrough { stop = (last, .passThrough) }
        return LayerChain.Outcome(inside: inside, stop: stop)
    }

    /// A box in scene coordinates outside which `p` never lies in layer
    /// `n`'s region as `follow` maps it: the region's bounds carried up
    /// through every transform, each step grown by what rounding can add
    /// (`Affine.roundingReach`). Nil when `n` has no region or a transform
    /// on the way is singular; the whole finite plane where some step has
    /// no rounding bound. O(depth).
    public func searchBox(of n: Int) -> Box? {
        let node = nodes[n]
        guard node.region >= 0 else { return nil }
        var box = regions[Int(node.region)].bounds
        var k = Int32(n)
        while k >= 0 {
            let step = nodes[Int(k)]
            if step.skip == .singularTransform { return nil }
            let mapped = step.toParent.apply(box)
            guard let pad = step.toParent.roundingReach(inverse: step.toLocal, over: box) else { return .finitePlane }
            box = mapped.outset(dx: pad.x, dy: pad.y)
            k = step.parent
        }
        return box
    }
}

extension CompiledScene {
    /// Whether `chain`'s layer can be in any point's `all` stack: no layer
    /// on it is skipped, no ancestor is `self-only`, the layer itself is
    /// not `children-only` and has a region. (Clips decide per point.) O(depth).
    public func mayBeInStack(_ chain: LayerChain) -> Bool {
        guard let last = chain.layers.last, nodes[Int(last)].region >= 0, nodes[Int(last)].pointerEvents != .childrenOnly
        else { return false }
        for n in chain.layers {
            if nodes[Int(n)].skip != nil { return false }
            if n != last && nodes[Int(n)].pointerEvents == .selfOnly { return false }
        }
        return true
    }
}

extension CompiledScene {
    /// Whether layer `n` is `passThrough`.
    public func isPassThrough(_ n: Int) -> Bool { nodes[n].passThrough }
}
