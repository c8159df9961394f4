extension CompiledScene {
    /// Recompiles layer `n` from `layer` (same id and children): its flags,
    /// transform and region, the scene bounds of its subtree, its place
    /// among its siblings and the indexes above it.
    /// `sameRegion` says that only the translation changed (a drag): the
    /// region is kept, only its place moves. Returns the layers whose
    /// bounds it read (`Walk.work`).
    /// - Complexity: O(depth + subtree + parent's index), plus the indexes
    ///   above a descendant whose region's bounds a new scale moved (built
    ///   again), and O(layers) when the subtree's old bounds touched an
    ///   edge of the scene's.
    @discardableResult
    mutating func update(_ n: Int, to layer: Layer, sameRegion: Bool = false) -> Int {
        let subtree = n...(n + withTables { $0.descendantCount(Int32(n)) })  // pre-order: contiguous
        let before = sceneBounds(of: subtree)
        let old = nodes[n]
        var node = CompiledScene.node(for: layer, parent: old.parent, position: Int(old.position))
        node.childStart = old.childStart
        node.childCount = old.childCount
        node.childIndex = old.childIndex
        node.rank = old.rank
        node.region = old.region
        let parentToScene = self.parentToScene(n)
        let toScene = parentToScene * node.toParent
        if !sameRegion {
            node.region = compileRegion(for: layer, toScene: toScene, into: old.region)
        }
        node.sceneBounds = node.region >= 0 ? toScene.apply(regions[Int(node.region)].bounds) : .empty
        node.copyPlainPolygon(of: node.region >= 0 ? regions[Int(node.region)] : nil)
        node.cover = cover(node, isLeaf: node.childCount == 0)
        passThroughCount += (node.passThrough ? 1 : 0) - (old.passThrough ? 1 : 0)
        nodes[n] = node
        if actions[n] != layer.action {
            actions[n] = layer.action
            quotedActions.replace(n, with: layer.action, all: actions)
        }
        if old.toParent != node.toParent {
            recomputeDescendants(of: n, toScene: toScene, rescale: old.toParent.maxScale != node.toParent.maxScale, model: layer)
        }
        if old.zIndex != node.zIndex { resortSiblings(of: n) }
        setReach(n)
        propagateReach(from: n)
        // The scene's bounds: the others' union is the old one unless the
        // subtree's old bounds reached one of its edges.
        let after = sceneBounds(of: subtree)
        if before.isEmpty || before.isStrictlyInside(unionBounds) {
            unionBounds.formUnion(after)
            return 2 &* subtree.count
        }
        recomputeBounds()
        return 2 &* subtree.count &+ nodes.count
    }

    /// The union of the scene bounds of `layers`.
    private func sceneBounds(of layers: ClosedRange<Int>) -> Box {
        var b = Box.empty
        for k in layers { b.formUnion(nodes[k].sceneBounds) }
        return b
    }

    /// After layer `n`'s transform changed: its descendants' scene bounds
    /// (and, when the scale changed, their flattening tolerance; where a
    /// finer or coarser flattening moves a region's bounds, as slop around
    /// a curve's flattened outline does, the reaches above it and the
    /// indexes over them follow).
    private mutating func recomputeDescendants(of n: Int, toScene: Affine, rescale: Bool, model: Layer) {
        // Pre-order keeps a subtree contiguous; walk it with the models
        // alongside. Returns whether a reach among `k`'s children changed
        // (`k`'s index over them is then built again).
        func visit(_ k: Int32, _ layer: Layer, _ parentToScene: Affine) -> Bool {
            var changed = false
            for child in children(of: k) {
                let node = nodes[Int(child)]
                let childLayer = layer.children![Int(node.position)]
                let toScene = parentToScene * node.toParent
                var moved = false
                if node.region >= 0 {
                    if rescale {
                        let before = regions[Int(node.region)].bounds
                        let slot = compileRegion(for: childLayer, toScene: toScene, into: node.region)
                        nodes[Int(child)].region = slot
                        nodes[Int(child)].copyPlainPolygon(of: slot >= 0 ? regions[Int(slot)] : nil)
                        if slot < 0 { nodes[Int(child)].cover = .none }  // else the same shape in the same parent: the same cover
                        moved = slot < 0 || regions[Int(slot)].bounds != before
                    }
                    let slot = nodes[Int(child)].region
                    nodes[Int(child)].sceneBounds = slot >= 0 ? toScene.apply(regions[Int(slot)].bounds) : .empty
                }
                if visit(child, childLayer, toScene) || moved {
                    setReach(Int(child))
                    changed = true
                }
            }
            if changed, nodes[Int(k)].childIndex >= 0 {
                nodes[Int(k)].childIndex = rebuiltIndex(nodes[Int(k)].childIndex, Array(children(of: k)))
            }
            return changed
        }
        _ = visit(Int32(n), model, toScene)
    }

    /// Puts layer `n` back in its place among its siblings after its
    /// `zIndex` changed, and rebuilds their index.
    private mutating func resortSiblings(of n: Int) {
        let parent = nodes[n].parent
        if parent < 0 {
            roots = visitingOrder(roots)
            rootIndex = rebuiltIndex(rootIndex, roots)
        } else {
            let p = Int(parent)
            let range = Int(nodes[p].childStart)..<Int(nodes[p].childStart + nodes[p].childCount)
            let sorted = visitingOrder(Array(order[range]))
            order.replaceSubrange(range, with: sorted)
            nodes[p].childIndex = rebuiltIndex(nodes[p].childIndex, sorted)
        }
    }

    /// Re-ranks `siblings` and rebuilds their index in its old slot.
    private mutating func rebuiltIndex(_ slot: Int32, _ siblings: [Int32]) -> Int32 {
        let fresh = indexSiblings(siblings)  // appends a new index (or -1)
        guard slot >= 0, fresh >= 0 else { return fresh }
        indexes[Int(slot)] = indexes.removeLast()
        return slot
    }

    /// Tells the indexes above layer `n` where its subtree now reaches.
    /// Boxes only grow on the way up, and `reachUnbounded` is only ever
    /// set: that keeps them conservative without rescanning siblings.
    mutating func propagateReach(from n: Int) {
        var k = n
        while true {
            let parent = Int(nodes[k].parent)
            let index = parent >= 0 ? nodes[parent].childIndex : rootIndex
            if index >= 0 {
                // The siblings, for a rebuild (captured apart from `self`, whose `indexes` is being written).
                let siblings = parent >= 0 ? children(of: Int32(parent)) : roots[...]
                indexes[Int(index)].update(rank: Int(nodes[k].rank), layer: Int32(k), box: indexBox(k)) { Array(siblings) }
            }
            guard parent >= 0, nodes[parent].skip == nil, nodes[parent].pointerEvents != .selfOnly else { break }
            nodes[parent].reach.formUnion(reachInParent(k))  // in the parent's coordinates
            // Its children's flags other than `k`'s have not changed: no rescan.
            nodes[parent].reachUnbounded =
                nodes[parent].reachUnbounded || nodes[k].reachUnbounded
                || mapIsUnbounded(parent)
            k = parent
        }
    }
}

extension Region {
    /// A region with nothing in it.
    static let empty = Region(contours: [], fillRule: .nonzero, fill: true, stroke: 0, slop: .zero)
}
