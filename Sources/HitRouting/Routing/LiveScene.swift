/// A scene as submitted together with its compiled form, kept in step.
/// Changes that can be made without recompiling everything (dragging) go
/// through here.
public struct LiveScene: Sendable {
    public private(set) var model: Scene
    public private(set) var compiled: CompiledScene

    /// Compiles `model`.
    public init(_ model: Scene) {
        self.model = model
        self.compiled = CompiledScene(model)
    }

    /// Moves layer `n` by `delta`, in its parent's coordinates: its
    /// transform's translation grows by `delta` (SPEC §5 dragging).
    /// - Complexity: O(depth + size of the layer's subtree).
    public mutating func translateLayer(_ n: Int, by delta: Point) {
        model.updateLayer(at: compiled.modelPath(of: n)) { layer in
            layer.transform = (layer.transform ?? .parts(TransformParts())).translated(by: delta)
        }
        compiled.translateLayer(n, by: delta)
    }
}

extension CompiledScene {
    /// Grows layer `n`'s translation by `delta` (parent coordinates) and
    /// shifts the scene bounds of its subtree to match.
    mutating func translateLayer(_ n: Int, by delta: Point) {
        let sceneDelta = parentToScene(n).applyLinear(delta)
        nodes[n].toParent.e += delta.x
        nodes[n].toParent.f += delta.y
        if let inverse = nodes[n].toParent.inverse {
            nodes[n].toLocal = inverse
        }
        var pending = [Int32(n)]
        while let k = pending.popLast() {
            let b = nodes[Int(k)].sceneBounds
            if !b.isEmpty {
                nodes[Int(k)].sceneBounds = Box(
                    minX: b.minX + sceneDelta.x, minY: b.minY + sceneDelta.y,
                    maxX: b.maxX + sceneDelta.x, maxY: b.maxY + sceneDelta.y)
            }
            pending += children(of: k)
        }
        // Tell the indexes above: boxes only grow on the way up, which
        // keeps them conservative without rescanning siblings.
        var k = n
        while true {
            let box = reachInParent(k)
            let parent = Int(nodes[k].parent)
            let index = parent >= 0 ? nodes[parent].childIndex : rootIndex
            if index >= 0 { _ = indexes[Int(index)].update(rank: Int(nodes[k].rank), box: box) }
            guard parent >= 0, nodes[parent].skip == nil, nodes[parent].pointerEvents != .selfOnly else { break }
            nodes[parent].reach.formUnion(box)  // `box` is in the parent's coordinates
            k = parent
        }
    }
}
